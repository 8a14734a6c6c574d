// The page's one mutable state, shared by the modules that draw and act on it.
import type { Chain, Coin } from "@gateway/contracts";
import { type Step, ui } from "./elements.js";
import type { CheckoutView } from "./types.js";

export const state = {
  /** The last view read from the API. */
  view: null as CheckoutView | null,
  step: null as Step | null,
  /** The customer asked to pick another coin while a wallet is already assigned. */
  choosing: false,
  chain: null as Chain | null,
  coin: null as Coin | null,
  /** Server time minus local time, so the countdown is right on a phone with a wrong clock. */
  clockOffsetMs: 0,
  fastPollUntil: 0,
  pollTimer: 0,
  failures: 0,
  busy: false,
  redirecting: false,
  /** When the customer last changed the payment; a poll sent before then is out of date. */
  changedAt: 0,
  /** The outcome of a simulation that settlement has not applied yet. */
  simulating: null as string | null,
  /** The change stream, while there is one. */
  stream: null as EventSource | null,
  /** The newest payment version a change notice announced. */
  seenVersion: -1,
};

/** Milliseconds until the payment expires, by the server's clock. */
export function remainingMs(): number {
  const expiresAt = Date.parse(state.view?.expires_at ?? ui.countdown.getAttribute("datetime") ?? "");
  return expiresAt - (Date.now() + state.clockOffsetMs);
}

/** Milliseconds left on the current wallet's quote, or null without one. */
export function quoteRemainingMs(): number | null {
  const quote = state.view?.wallet?.quote;
  if (!quote) return null;
  return Date.parse(quote.expires_at) - (Date.now() + state.clockOffsetMs);
}

export function noteServerClock(dateHeader: string | null, sentAt: number, receivedAt: number): void {
  const server = Date.parse(dateHeader ?? "");
  if (Number.isNaN(server)) return;
  const offset = server - (sentAt + receivedAt) / 2;
  // The Date header has one-second resolution: smaller differences are noise.
  state.clockOffsetMs = Math.abs(offset) > 1500 ? offset : 0;
}
