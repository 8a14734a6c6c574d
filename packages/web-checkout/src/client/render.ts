// Draws a view of the payment: the status, the countdown, and the one step that fits it.

import { buildChoices } from "./choices.js";
import { renderCountdown, renderQuote } from "./countdown.js";
import { paymentId, type Step, ui } from "./elements.js";
import { money, t } from "./i18n.js";
import { chainName } from "./labels.js";
import { showAlert } from "./messages.js";
import { renderReceipt } from "./receipt.js";
import { fillResult } from "./result.js";
import { state } from "./state.js";
import { renderStatus, setBusy } from "./status.js";
import type { CheckoutView, CheckoutWallet } from "./types.js";

export function render(view: CheckoutView): void {
  const previous = state.view;
  state.view = view;
  if (view.status !== "pending") state.simulating = null;
  if (state.simulating && Date.now() > state.fastPollUntil) {
    state.simulating = null;
    showAlert(t("simulationLate"));
  }
  if (!previous) buildChoices(view);
  renderCountdown();
  renderStatus(view);

  const open = view.status === "pending" || view.status === "confirming" || view.status === "confirmed";
  let step: Step = "result";
  if (open) step = view.wallet && !state.choosing ? "wallet" : "choose";
  if (step === "wallet" && view.wallet)
    fillWallet(view.wallet, view.status === "pending" && view.options.length > 1);
  if (step === "result") fillResult(view);
  showStep(step, previous !== null);

  renderReceipt(view);
  if (ui.testTools) ui.testTools.hidden = !(view.is_test && view.status === "pending");
  setBusy(state.busy);
}

function showStep(step: Step, moveFocus: boolean): void {
  if (state.step === step) return;
  state.step = step;
  for (const [name, node] of Object.entries(ui.steps)) node.hidden = name !== step;
  if (moveFocus) ui.steps[step].querySelector<HTMLElement>("[data-focus]")?.focus();
}

function fillWallet(wallet: CheckoutWallet, canChange: boolean): void {
  const network = chainName(wallet.chain);
  ui.quoteRow.hidden = !wallet.quote;
  if (wallet.quote)
    ui.quoteRate.textContent = t("quoteRate", {
      coin: wallet.coin,
      rate: money(wallet.quote.rate, "").trim(),
    });
  renderQuote();
  ui.walletAmount.textContent = `${wallet.amount} ${wallet.coin}`;
  fillOneTap(wallet);
  ui.walletAddress.textContent = wallet.address;
  ui.walletNetwork.textContent = network;
  const qrSrc = `/gateway/qr?${new URLSearchParams({ payment_id: paymentId, chain: wallet.chain, coin: wallet.coin })}`;
  if (ui.qr.getAttribute("src") !== qrSrc) ui.qr.src = qrSrc;
  const amount = money(wallet.amount, wallet.coin);
  ui.qr.alt = wallet.payment_uri ? t("qrRequestAlt", { network, amount }) : t("qrAddressAlt", { network });
  ui.qrCaption.textContent = wallet.payment_uri ? t("qrRequestCaption") : t("qrAddressCaption", { network });
  ui.walletLinkRow.hidden = !wallet.payment_uri;
  if (wallet.payment_uri) ui.walletLink.href = wallet.payment_uri;
  ui.warning.textContent = t("sendOnly", { coin: wallet.coin, network });
  ui.change.hidden = !canChange;
}

/** Solana Pay's one-tap request comes first on Solana: its QR on a desktop, a button on a phone (CSS). */
function fillOneTap(wallet: CheckoutWallet): void {
  const url = wallet.transaction_request_url;
  ui.oneTap.hidden = !url;
  if (!url) return;
  ui.oneTapLink.href = `solana:${encodeURIComponent(url)}`;
  const src = `/gateway/qr?${new URLSearchParams({ payment_id: paymentId, chain: wallet.chain, coin: wallet.coin, request: "1" })}`;
  if (ui.oneTapQr.getAttribute("src") !== src) ui.oneTapQr.src = src;
  ui.oneTapQr.alt = t("oneTapQrAlt", { amount: money(wallet.amount, wallet.coin) });
}
