// Draws a view of the payment: the status, the countdown, and the one step that fits it.

import { buildChoices } from "./choices.js";
import { renderCountdown, renderQuote } from "./countdown.js";
import { paymentId, type Step, ui } from "./elements.js";
import { chainName } from "./labels.js";
import { showAlert } from "./messages.js";
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
    showAlert("The simulation has not been applied yet. Try again in a moment.");
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
  if (wallet.quote) ui.quoteRate.textContent = `1 ${wallet.coin} = ${wallet.quote.rate} USD`;
  renderQuote();
  ui.walletAmount.textContent = `${wallet.amount} ${wallet.coin}`;
  ui.walletAddress.textContent = wallet.address;
  ui.walletNetwork.textContent = network;
  const qrSrc = `/gateway/qr?${new URLSearchParams({ payment_id: paymentId, chain: wallet.chain, coin: wallet.coin })}`;
  if (ui.qr.getAttribute("src") !== qrSrc) ui.qr.src = qrSrc;
  ui.qr.alt = wallet.payment_uri
    ? `QR code of a ${network} payment request for ${wallet.amount} ${wallet.coin}`
    : `QR code of the ${network} deposit address`;
  ui.qrCaption.textContent = wallet.payment_uri
    ? "Scan with a Solana Pay wallet: amount and address are filled in."
    : `Scan the address with your ${network} wallet, then enter the amount.`;
  ui.walletLinkRow.hidden = !wallet.payment_uri;
  if (wallet.payment_uri) ui.walletLink.href = wallet.payment_uri;
  ui.warning.textContent = `Send only ${wallet.coin} on the ${network} network to this address, and the exact amount. This address is for this payment only.`;
  ui.change.hidden = !canChange;
}
