// The payment's countdown and the quote's: ticked every second, announced only at a few moments.

import { ui } from "./elements.js";
import { clock, t } from "./i18n.js";
import { formatRemaining } from "./labels.js";
import { announce } from "./messages.js";
import { quoteRemainingMs, remainingMs, state } from "./state.js";
import { renderStatus, setBusy } from "./status.js";

let announcedQuoteEnd: string | undefined;

/** The quote's countdown; once it ends the stale amount is hidden behind one "new quote" action. */
export function renderQuote(): void {
  const ms = quoteRemainingMs();
  const ended = ms !== null && ms <= 0 && state.view?.status === "pending";
  if (ms !== null) ui.quoteCountdown.textContent = formatRemaining(ms);
  ui.quoteRunning.hidden = ms === null || ended;
  ui.quoteEnded.hidden = !ended;
  ui.refreshQuote.hidden = !ended;
  ui.walletDetails.hidden = ended;
  const expiresAt = state.view?.wallet?.quote?.expires_at;
  if (ended && announcedQuoteEnd !== expiresAt) {
    announcedQuoteEnd = expiresAt;
    announce(t("quoteEndedAnnounce"));
  }
}

let announcedMinutes: number | null = null;

export function renderCountdown(): void {
  const view = state.view;
  if (view?.wallet?.quote) renderQuote();
  const running = !view || view.status === "pending";
  ui.countdownRow.hidden = !running;
  if (!running) return;
  const ms = remainingMs();
  ui.countdown.textContent = formatRemaining(ms);
  if (view && !ui.expiresClock.textContent)
    ui.expiresClock.textContent = t("expiresAtClock", { time: clock(new Date(view.expires_at)) });
  ui.countdownRow.dataset.urgent = String(ms < 5 * 60_000);
  // A screen reader hears the clock only at a few moments, not every second.
  const minutes = ms > 0 ? Math.ceil(ms / 60_000) : 0;
  if ((minutes === 5 || minutes === 1) && announcedMinutes !== minutes && ms < minutes * 60_000 - 1000) {
    announcedMinutes = minutes;
    announce(minutes === 1 ? t("minutesLeftOne") : t("minutesLeftMany", { minutes }));
  }
  if (ms <= 0 && view) {
    renderStatus(view);
    setBusy(state.busy);
  }
}
