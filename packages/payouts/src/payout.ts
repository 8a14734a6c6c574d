// The payout actor: a pure `decide(state, message) → { state, effects }`, in the payment's shape
// (packages/domain, payment.ts). The runtime (payout-actor.ts) locks the payout's row, stores the
// new state and runs the effects (postings, events, the command to settlement) in one transaction.
// docs/payouts.md draws the lifecycle: pending → processing → completed | failed.

import {
  type AnnouncedPayoutStatus,
  type Chain,
  type Mode,
  type PayoutCoin,
  type PayoutEventType,
  type PayoutKind,
  type PayoutStatus,
  payoutEventType,
} from "@gateway/contracts";

/** What the actor decides on. Amounts are in base units of `coin`. */
export interface PayoutState {
  id: string;
  merchantId: string;
  mode: Mode;
  chain: Chain;
  coin: PayoutCoin;
  /** What leaves the merchant's balance, network fee included. */
  amount: bigint;
  /** The part of `amount` that pays the network gas (0 for the free scheduled payout). */
  networkFee: bigint;
  destination: string;
  kind: PayoutKind;
  status: PayoutStatus;
  /** Test payouts are simulated: they complete at once and move no funds. */
  simulated: boolean;
  txid: string | null;
  failureReason: string | null;
}

/** What a payout is created with. */
export type NewPayoutState = Omit<PayoutState, "status" | "simulated" | "txid" | "failureReason">;

export type PayoutMessage =
  /** Settlement took the payout up. */
  | { type: "start" }
  /** Sent and final on chain; `txid` is null for a simulated (test) payout. */
  | { type: "complete"; txid: string | null }
  /** Refused, or impossible: its reserve goes back to the available balance. */
  | { type: "fail"; reason: string };

export type PayoutMessageType = PayoutMessage["type"];
/** The message of one type. */
export type PayoutMessageOf<T extends PayoutMessageType> = Extract<PayoutMessage, { type: T }>;

export type PayoutEffect =
  | { type: "event"; event: PayoutEventType }
  /**
   * Move `amount` from available to reserved. `alreadySent`: the signer's record shows it went
   * out before a restore of the database, so it is reserved whatever the balance.
   */
  | { type: "reserve"; alreadySent: boolean }
  /** Ask settlement to execute the payout. */
  | { type: "execute" }
  /** The reserve leaves the vault (completion). */
  | { type: "settle" }
  /** The reserve returns to the available balance (failure). */
  | { type: "release" };

/** Why a message left the state unchanged. The runtime returns the payout as it is. */
export type PayoutRejectionCode =
  /** The payout is already in the status the message leads to: a replay. */
  | "duplicate"
  /** The payout has passed that step (a finished payout never changes). */
  | "not_applicable";

export interface PayoutDecision {
  state: PayoutState;
  effects: PayoutEffect[];
  rejected?: { code: PayoutRejectionCode; message: string };
}

/** A new payout: pending, its amount reserved, and settlement asked to execute it. */
export function newPayout(input: NewPayoutState, options: { alreadySent?: boolean } = {}): PayoutDecision {
  const state: PayoutState = {
    ...input,
    status: "pending",
    simulated: input.mode === "test",
    txid: null,
    failureReason: null,
  };
  return {
    state,
    effects: [{ type: "reserve", alreadySent: options.alreadySent === true }, { type: "execute" }],
  };
}

export function decide(state: PayoutState, message: PayoutMessage): PayoutDecision {
  // The table names every (status, message) pair, so a new status or message without its
  // handlers does not compile.
  const handler = HANDLERS[state.status][message.type] as (
    s: PayoutState,
    m: PayoutMessage,
  ) => PayoutDecision;
  return handler(state, message);
}

/** What settlement does with a payout it is asked to execute. */
export type PayoutStep =
  /** Completed or failed already: a message delivered again. */
  | "none"
  /** A test payout: completed at once, with no transaction. */
  | "simulate"
  /** A live payout: sent through the chain's payout and the signer. */
  | "send";

export function payoutStep(state: Pick<PayoutState, "status" | "mode">): PayoutStep {
  if (isFinished(state.status)) return "none";
  return state.mode === "test" ? "simulate" : "send";
}

export function isFinished(status: PayoutStatus): boolean {
  return status === "completed" || status === "failed";
}

function moveTo(
  state: PayoutState,
  status: AnnouncedPayoutStatus,
  fields: Partial<PayoutState>,
  posting: PayoutEffect[],
): PayoutDecision {
  return {
    state: { ...state, ...fields, status },
    effects: [...posting, { type: "event", event: payoutEventType(status) }],
  };
}

function start(state: PayoutState): PayoutDecision {
  return moveTo(state, "processing", { failureReason: null }, []);
}

function complete(state: PayoutState, msg: PayoutMessageOf<"complete">): PayoutDecision {
  return moveTo(state, "completed", { txid: msg.txid, failureReason: null }, [{ type: "settle" }]);
}

function fail(state: PayoutState, msg: PayoutMessageOf<"fail">): PayoutDecision {
  return moveTo(state, "failed", { failureReason: msg.reason }, [{ type: "release" }]);
}

function replay(state: PayoutState): PayoutDecision {
  return { state, effects: [], rejected: { code: "duplicate", message: `already ${state.status}` } };
}

function passed(state: PayoutState, msg: PayoutMessage): PayoutDecision {
  const message = `a ${state.status} payout does not take ${msg.type}`;
  return { state, effects: [], rejected: { code: "not_applicable", message } };
}

const HANDLERS: {
  [S in PayoutStatus]: {
    [T in PayoutMessageType]: (state: PayoutState, msg: PayoutMessageOf<T>) => PayoutDecision;
  };
} = {
  pending: { start, complete, fail },
  processing: { start: replay, complete, fail },
  completed: { start: passed, complete: replay, fail: passed },
  failed: { start: passed, complete: passed, fail: replay },
};
