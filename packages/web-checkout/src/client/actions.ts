// What the customer can do: get a deposit address, refresh an ended quote, pick another coin,
// copy the amount or address, and on a test payment simulate its outcome.

import { SIMULATED_OUTCOMES, type SimulatedOutcome } from "@gateway/contracts";
import { api, errorMessage } from "./api.js";
import { root, ui } from "./elements.js";
import { FAST_POLL_MS, FAST_POLL_WINDOW_MS, schedulePoll } from "./follow.js";
import { money, t } from "./i18n.js";
import { announce, hideAlert, showAlert } from "./messages.js";
import { render } from "./render.js";
import { state } from "./state.js";
import { renderStatus, setBusy } from "./status.js";
import type { CheckoutView, CheckoutWallet } from "./types.js";

/** Runs one call that changes the payment, with the controls disabled until it answers. */
async function act(call: () => Promise<void>): Promise<void> {
  setBusy(true);
  hideAlert();
  try {
    await call();
  } catch (err) {
    showAlert(errorMessage(err));
    schedulePoll(0);
  } finally {
    setBusy(false);
  }
}

function showWallet(view: CheckoutView, wallet: CheckoutWallet): void {
  state.changedAt = Date.now();
  render({ ...view, wallet });
}

function isSimulatedOutcome(value: string | undefined): value is SimulatedOutcome {
  return (SIMULATED_OUTCOMES as readonly (string | undefined)[]).includes(value);
}

async function copyText(text: string, source: HTMLElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (insecure origin, old browser): select the text so a long-press copies it.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
    return false;
  }
}

export function wireActions(): void {
  ui.steps.choose.addEventListener("submit", (event) => {
    event.preventDefault();
    const { chain, coin, view } = state;
    if (state.busy || !chain || !coin || !view) return;
    void act(async () => {
      const wallet = await api<CheckoutWallet>("POST", "/generate-wallet", { chain, coin });
      state.choosing = false;
      showWallet(state.view ?? view, wallet);
      announce(t("addressReady", { amount: money(wallet.amount, wallet.coin) }));
    });
  });

  // One action after a quote ends: the same choice again, at today's price.
  ui.refreshQuote.addEventListener("click", () => {
    const view = state.view;
    const wallet = view?.wallet;
    if (state.busy || !view || !wallet) return;
    void act(async () => {
      const fresh = await api<CheckoutWallet>("POST", "/generate-wallet", {
        chain: wallet.chain,
        coin: wallet.coin,
      });
      showWallet(state.view ?? view, fresh);
      announce(t("newQuote", { amount: money(fresh.amount, fresh.coin) }));
    });
  });

  ui.change.addEventListener("click", () => {
    state.choosing = true;
    if (state.view) render(state.view);
  });

  ui.testTools?.addEventListener("click", (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>("button[data-simulate]");
    const outcome = button?.dataset.simulate;
    if (!isSimulatedOutcome(outcome) || state.busy) return;
    void act(async () => {
      await api("POST", "/simulate", { outcome });
      state.simulating = outcome === "paid" ? "payment" : outcome;
      state.fastPollUntil = Date.now() + FAST_POLL_WINDOW_MS;
      if (state.view) renderStatus(state.view);
      schedulePoll(FAST_POLL_MS / 2);
    });
  });

  root.addEventListener("click", async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>("button[data-copy]");
    const wallet = state.view?.wallet;
    if (!button || !wallet) return;
    const what = button.dataset.copy;
    const text = what === "address" ? wallet.address : wallet.amount;
    const source = what === "address" ? ui.walletAddress : ui.walletAmount;
    const ok = await copyText(text, source);
    announce(ok ? t(what === "address" ? "copiedAddress" : "copiedAmount") : t("copyFailed"));
    // Only the visible word changes; the hidden rest keeps the name saying what is copied.
    const label = button.querySelector("[data-copy-label]");
    if (ok && label) {
      label.textContent = t("copied");
      setTimeout(() => {
        label.textContent = t("copy");
      }, 2000);
    }
  });
}
