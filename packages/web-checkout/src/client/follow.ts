// Keeping the view current: a change stream for the whole visit, with polling as its safety net
// and its stand-in. Customers behind one address (an office, a mobile carrier) share its rate
// limit, so one long request beats a poll every two seconds.

import { ApiError, api, apiBase } from "./api.js";
import { t } from "./i18n.js";
import { isFinal } from "./labels.js";
import { hideAlert, showAlert } from "./messages.js";
import { render } from "./render.js";
import { state } from "./state.js";
import type { CheckoutView, PaymentChange } from "./types.js";

const POLL_MS = 2000;
/** After a simulation the outcome arrives within a second or two: look more often for a while. */
export const FAST_POLL_MS = 1000;
export const FAST_POLL_WINDOW_MS = 30_000;
const MAX_BACKOFF_MS = 15_000;
/** While the stream is open the page reads the view when told of a change; this slow poll is
 * only a safety net for a stream that stalls without saying so. */
const STREAM_SAFETY_POLL_MS = 30_000;

export function schedulePoll(delayMs: number): void {
  window.clearTimeout(state.pollTimer);
  state.pollTimer = window.setTimeout(poll, delayMs);
}

export async function poll(): Promise<void> {
  if (document.hidden) return; // resumed by visibilitychange
  const sentAt = Date.now();
  try {
    const view = await api<CheckoutView>("GET", "");
    state.failures = 0;
    hideAlert();
    // A view read before the customer's own change (a new wallet) would undo it on screen.
    if (sentAt >= state.changedAt) render(view);
  } catch (err) {
    state.failures += 1;
    if (err instanceof ApiError && err.status === 404) {
      showAlert(t("noLongerExists"));
      return;
    }
    if (state.failures > 1) showAlert(t("connectionProblem"));
    const backoff = Math.min(POLL_MS * 2 ** state.failures, MAX_BACKOFF_MS);
    schedulePoll(err instanceof ApiError && err.retryAfterMs ? err.retryAfterMs : backoff);
    return;
  }
  if (!state.view || isFinal(state.view.status)) {
    stopFollowing();
    return;
  }
  schedulePoll(nextPollDelay());
}

function nextPollDelay(): number {
  if (state.stream?.readyState === EventSource.OPEN) return STREAM_SAFETY_POLL_MS;
  return Date.now() < state.fastPollUntil ? FAST_POLL_MS : POLL_MS;
}

function parseChange(data: string): PaymentChange | null {
  try {
    const change = JSON.parse(data) as Partial<PaymentChange> | null;
    return typeof change?.version === "number" ? (change as PaymentChange) : null;
  } catch {
    return null;
  }
}

export function followChanges(): void {
  if (typeof EventSource !== "function" || state.stream) return;
  const stream = new EventSource(`${apiBase}/events`);
  state.stream = stream;
  stream.addEventListener("change", (event) => {
    const change = parseChange((event as MessageEvent<string>).data);
    if (!change || change.version <= state.seenVersion) return;
    state.seenVersion = change.version;
    schedulePoll(0);
    // The server ends the stream after a final status; closing it here stops EventSource from
    // reconnecting to hear the same thing again.
    if (isFinal(change.status)) stopFollowing();
  });
  stream.addEventListener("error", () => {
    // EventSource reconnects by itself after a dropped connection; once it gives up (a refused
    // request such as a 429, or the stream ended for good) polling goes on alone.
    if (stream.readyState === EventSource.CLOSED && state.stream === stream) {
      state.stream = null;
      if (state.view && !isFinal(state.view.status)) schedulePoll(nextPollDelay());
    }
  });
}

export function stopFollowing(): void {
  state.stream?.close();
  state.stream = null;
}
