// The payment actor: a pure `decide(state, message) → { state, effects }`. The runtime
// feeds one message at a time per payment, stores the new state and the effects in one
// transaction, and executes the effects (events, sweeps, refunds, credits) exactly once.
// docs/payment-lifecycle.md draws the state diagram and explains each decision.

import type { PaymentEventType, PaymentStatus, RefundReason, SimulatedOutcome } from "@gateway/contracts";
import { assertNever } from "./assert-never.js";
import { canPay, coinsForPayment, needsQuote, toCoinUnits } from "./coins.js";
import { computeFee } from "./fees.js";
import { type Chain, type Coin, type Currency, DECIMALS, type Mode, MoneyError, pow10 } from "./money.js";
import { isPriced, type PricedCoin, pricesWith, quotedAmount } from "./prices.js";

export {
  PAYMENT_EVENT_TYPES,
  PAYMENT_STATUSES,
  type PaymentEventType,
  type PaymentStatus,
  type SimulatedOutcome,
} from "@gateway/contracts";

/** Statuses that never change again; late transfers to them only add refunds. */
export const TERMINAL_STATUSES: readonly PaymentStatus[] = ["completed", "refunded", "failed"];

/**
 * The rate a USD payment paid in SOL or SUI is locked at. Transfers seen before `expiresAt`
 * count at this rate; one first seen after the quote ended is returned (docs/payment-lifecycle.md).
 */
export interface WalletQuote {
  /** Micro-USD per whole coin. */
  rate: bigint;
  /** Epoch milliseconds; never after the payment's expiresAt. */
  expiresAt: number;
  /** The `quote_expire` message arrived: the quote takes no new transfer. */
  ended: boolean;
}

/** The deposit wallet the customer chose. Amounts inside the actor are in `coin` base units. */
export interface DepositWallet {
  chain: Chain;
  coin: Coin;
  /** Null only for a test payment simulated before any wallet was generated. */
  address: string | null;
  amountDue: bigint;
  /** Present only for a quoted pair (a USD payment paid in SOL or SUI). */
  quote?: WalletQuote | null;
}

/**
 * seen: observed, not final yet (it holds expiry open). counted: final and part of the
 * amount received. returned: final but late, so refunded in full. dropped: a seen transfer
 * the watcher found will never be final.
 */
export type TransferStatus = "seen" | "counted" | "returned" | "dropped";

/**
 * The watcher's signature over a final transfer (who sent how much to which deposit address).
 * The signer refunds only to the attested sender and never more than the attested amount, so
 * settlement alone cannot invent a refund. Opaque here: carried from the report to the refund.
 */
export interface TransferAttestation {
  keyId: string;
  /** Base64 ed25519 signature over attestationMessage (packages/signer-proto). */
  signature: string;
}

export interface TransferRecord {
  transferId: string;
  coin: Coin;
  amount: bigint;
  sender: string;
  status: TransferStatus;
  /** Set when the final report carried one. */
  attestation?: TransferAttestation | null;
}

/**
 * underpayment: the payment expired short, every counted transfer goes back.
 * overpayment: the surplus of the transfer that covered the amount due.
 * late: a transfer that arrived after the payment stopped accepting funds.
 */
export type RefundKind = RefundReason;

/**
 * deposit: the funds still sit on the deposit address. vault: they were swept with the
 * payment (an overpayment surplus), so the refund is paid from the vault.
 */
export type RefundSource = "deposit" | "vault";

export interface Refund {
  /** Deterministic: `<payment id>:<transfer id>:<kind>`, or `<payment id>:simulated:<kind>`. */
  refundId: string;
  kind: RefundKind;
  /** Null only for a simulated refund. */
  transferId: string | null;
  chain: Chain;
  coin: Coin;
  amount: bigint;
  /** The sender of the transfer; null only for a simulated refund. */
  to: string | null;
  from: RefundSource;
  /** Test-mode simulation: nothing moves on chain and it counts as sent at once. */
  simulated: boolean;
  /** The refunded transfer's attestation and its whole amount (what the signer checks against). */
  attestation?: TransferAttestation | null;
  transferAmount?: bigint | null;
}

export interface RefundRecord extends Refund {
  /** Set by `refund_sent`; stays null for simulated refunds. */
  txid: string | null;
}

export interface Credit {
  chain: Chain;
  coin: Coin;
  /** The amount due, in coin base units. */
  gross: bigint;
  fee: bigint;
  net: bigint;
  /**
   * The payment's USD value in micro-USD, as booked: the USD amount for USD payments (at their
   * quote when paid in SOL/SUI), 1:1 for stablecoins, amount × rate for SOL/SUI payments.
   * Null only when no rate was known (absent in credits made before prices existed).
   */
  usdValue?: bigint | null;
  /** Micro-USD per coin used for usdValue; null for stablecoins. */
  usdRate?: bigint | null;
}

export interface PaymentState {
  id: string;
  mode: Mode;
  currency: Currency;
  /** What the merchant asked for, in `currency` base units. */
  amount: bigint;
  /** Fee fixed at creation (computeFee), in `currency` base units; charged only on completion. */
  fee: bigint;
  /** Epoch milliseconds. */
  expiresAt: number;
  status: PaymentStatus;
  wallet: DepositWallet | null;
  transfers: TransferRecord[];
  /** Sum of counted transfers, in coin base units. Never decreases. */
  amountReceived: bigint;
  /** Surplus returned to the customer when the payment completed, in coin base units. */
  overpaidAmount: bigint;
  /** The expire message arrived; what was seen before it is still waited for. */
  expiryReached: boolean;
  refunds: RefundRecord[];
  sweepTxid: string | null;
  credit: Credit | null;
  failureReason: string | null;
  simulated: boolean;
  /** SOL/SUI payments: micro-USD per coin when created (limits, creation fee). */
  usdRateAtCreation?: bigint | null;
  /** SOL/SUI payments: micro-USD per coin when completed (the fee charged); null if none was fresh. */
  usdRateAtCompletion?: bigint | null;
}

export type PaymentMessage =
  | {
      type: "wallet_assigned";
      chain: Chain;
      coin: Coin;
      address: string;
      amountDue: bigint;
      /** Required for a quoted pair, absent otherwise. */
      quote?: { rate: bigint; expiresAt: number } | null;
    }
  | { type: "transfer_seen"; transferId: string; coin: Coin; amount: bigint; sender: string }
  | {
      type: "transfer_final";
      transferId: string;
      coin: Coin;
      amount: bigint;
      sender: string;
      attestation?: TransferAttestation | null;
    }
  | { type: "transfer_dropped"; transferId: string }
  | { type: "expire"; now: number }
  /** The wallet's quote reached its end (`expiresAt` names which quote). */
  | { type: "quote_expire"; expiresAt: number; now: number }
  /** `usdRate`: the live price when the sweep landed, for SOL/SUI payments (fee at completion). */
  | { type: "sweep_done"; txid: string; usdRate?: bigint | null }
  | { type: "refund_sent"; refundId: string; txid: string }
  | { type: "fail"; reason: string }
  | { type: "simulate"; outcome: SimulatedOutcome };

export type PaymentMessageType = PaymentMessage["type"];
/** The message of one type. */
export type PaymentMessageOf<T extends PaymentMessageType> = Extract<PaymentMessage, { type: T }>;

// A record, not a list, so that adding a message type without listing it fails to compile.
const MESSAGE_TYPES: Record<PaymentMessageType, true> = {
  wallet_assigned: true,
  transfer_seen: true,
  transfer_final: true,
  transfer_dropped: true,
  expire: true,
  quote_expire: true,
  sweep_done: true,
  refund_sent: true,
  fail: true,
  simulate: true,
};
export const PAYMENT_MESSAGE_TYPES = Object.keys(MESSAGE_TYPES) as readonly PaymentMessageType[];

export type PaymentEffect =
  | { type: "event"; event: PaymentEventType }
  /** Move `amount` from the deposit address to the vault (gas paid by the service). */
  | { type: "sweep"; chain: Chain; coin: Coin; address: string; amount: bigint }
  | ({ type: "refund" } & Refund)
  /**
   * Tell the customer that this refund was sent, where no payment event does: a surplus or a late
   * transfer goes back while the payment keeps its status (hasOwnNotice).
   */
  | { type: "refund_notice"; refundId: string }
  /** Add `net` to the merchant's balance for `chain`/`coin` (and record `fee` as earned). */
  | ({ type: "credit" } & Credit);

/** Why a message left the state unchanged. The runtime acks the message and logs this. */
export type RejectionCode =
  /** The message has no meaning in the current status. */
  | "not_applicable"
  /** Already applied: a replay. */
  | "duplicate"
  /** A transfer or wallet message for a payment without a deposit address. */
  | "no_wallet"
  /** The (chain, coin) cannot pay this payment, or the address is empty. */
  | "wallet_invalid"
  /** amountDue differs from the payment amount converted into the coin. */
  | "amount_due_mismatch"
  /** A transfer in another coin than the chosen one; left for an operator. */
  | "coin_mismatch"
  /** A non-positive transfer amount, or an empty txid. */
  | "invalid_message"
  /** A transfer seen after expiry: it will be returned when final, not waited for. */
  | "after_expiry"
  /** `expire` or `quote_expire` sent before its time. */
  | "not_expired"
  /** A quoted pair without a usable quote, a quote past the payment's expiry, or a quote on a fixed-rate pair. */
  | "quote_invalid"
  /** A transfer seen after the wallet's quote ended: it will be returned when final. */
  | "quote_ended"
  | "unknown_transfer"
  | "unknown_refund"
  /** `simulate` on a live payment. */
  | "live_mode"
  /** The amount due is one base unit: there is no smaller amount to simulate an underpayment. */
  | "cannot_simulate";

export interface Rejection {
  code: RejectionCode;
  message: string;
}

export interface Decision {
  state: PaymentState;
  effects: PaymentEffect[];
  rejected?: Rejection;
}

/** What a payment is created with. */
export interface NewPayment
  extends Pick<PaymentState, "id" | "mode" | "currency" | "amount" | "fee" | "expiresAt"> {
  /** SOL/SUI payments: the price (micro-USD per coin) the limits and fee were computed at. */
  usdRate?: bigint | null;
}

export function initialPaymentState(input: NewPayment): PaymentState {
  if (input.amount <= 0n) throw new MoneyError("amount_not_positive", "amount must be greater than zero");
  if (input.fee < 0n || input.fee > input.amount) {
    throw new MoneyError("amount_invalid", "fee must be between zero and the amount");
  }
  return {
    id: input.id,
    mode: input.mode,
    currency: input.currency,
    amount: input.amount,
    fee: input.fee,
    expiresAt: input.expiresAt,
    status: "pending",
    wallet: null,
    transfers: [],
    amountReceived: 0n,
    overpaidAmount: 0n,
    expiryReached: false,
    refunds: [],
    sweepTxid: null,
    credit: null,
    failureReason: null,
    simulated: false,
    usdRateAtCreation: input.usdRate ?? null,
    usdRateAtCompletion: null,
  };
}

export function isTerminal(status: PaymentStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Seen transfers that are neither final nor dropped. */
export function outstandingTransfers(state: PaymentState): TransferRecord[] {
  return state.transfers.filter((t) => t.status === "seen");
}

/** True once every refund the payment owes has been sent (or simulated). */
export function allRefundsSent(state: PaymentState): boolean {
  return state.refunds.every((r) => r.simulated || r.txid !== null);
}

/**
 * A refund the customer is told of on its own, once sent: an overpayment's surplus, and a transfer
 * that came late, while the payment stands. A refund that makes the payment `refunded` is
 * announced by `payment.refunded` instead (onRefundSent).
 */
export function hasOwnNotice(refund: Pick<Refund, "kind">): boolean {
  return refund.kind === "overpayment" || refund.kind === "late";
}

export function refundIdFor(paymentId: string, transferId: string, kind: RefundKind): string {
  return `${paymentId}:${transferId}:${kind}`;
}

export function decide(state: PaymentState, msg: PaymentMessage): Decision {
  // A message type without its handler does not compile (the table names every type).
  const handler = HANDLERS[msg.type] as (state: PaymentState, msg: PaymentMessage) => Decision;
  return handler(state, msg);
}

function reject(state: PaymentState, code: RejectionCode, message: string): Decision {
  return { state, effects: [], rejected: { code, message } };
}

function event(name: PaymentEventType): PaymentEffect {
  return { type: "event", event: name };
}

/** pending and confirming still accept funds toward the amount due (until expiry). */
function isOpen(status: PaymentStatus): boolean {
  return status === "pending" || status === "confirming";
}

/** Adds or replaces a transfer, keeping arrival order. */
function withTransfer(state: PaymentState, record: TransferRecord): TransferRecord[] {
  const known = state.transfers.some((t) => t.transferId === record.transferId);
  return known
    ? state.transfers.map((t) => (t.transferId === record.transferId ? record : t))
    : [...state.transfers, record];
}

/** Math.min for bigints. */
function smaller(a: bigint, b: bigint): bigint {
  if (a < b) return a;
  return b;
}

/** `amount` base units (of `decimals`) in micro-USD at `ratePerWhole` micro-USD per whole unit. */
function microsOf(amount: bigint, decimals: number, ratePerWhole: bigint): bigint {
  return (amount * ratePerWhole) / pow10(decimals);
}

function creditFor(state: PaymentState, wallet: DepositWallet): Credit {
  const quote = wallet.quote ?? null;
  const base = { chain: wallet.chain, coin: wallet.coin, gross: wallet.amountDue };
  if (quote !== null && needsQuote(state.currency, wallet.coin)) {
    // The USD fee taken in the coin at the quote, rounded up, never more than what was due.
    const inCoin = quotedAmount(state.fee, wallet.coin, quote.rate);
    const fee = smaller(inCoin, wallet.amountDue);
    const usdValue = microsOf(state.amount, DECIMALS.USD, 1_000_000n);
    return { ...base, fee, net: wallet.amountDue - fee, usdValue, usdRate: quote.rate };
  }
  const fee = toCoinUnits(state.fee, state.currency, wallet.coin);
  if (isPriced(state.currency)) {
    const usdRate = state.usdRateAtCompletion ?? state.usdRateAtCreation ?? null;
    const usdValue = usdRate === null ? null : microsOf(state.amount, DECIMALS[state.currency], usdRate);
    return { ...base, fee, net: wallet.amountDue - fee, usdValue, usdRate };
  }
  const usdValue = microsOf(state.amount, DECIMALS[state.currency], 1_000_000n);
  return { ...base, fee, net: wallet.amountDue - fee, usdValue, usdRate: null };
}

/** The wallet's quote ended: new transfers to it are returned instead of counted. */
function quoteEnded(wallet: DepositWallet): boolean {
  return wallet.quote?.ended === true;
}

function refundEffect(refund: Refund): PaymentEffect {
  return { type: "refund", ...refund };
}

function refundNotice(refund: Refund): PaymentEffect {
  return { type: "refund_notice", refundId: refund.refundId };
}

function onWalletAssigned(state: PaymentState, msg: PaymentMessageOf<"wallet_assigned">): Decision {
  if (state.status !== "pending") {
    return reject(state, "not_applicable", `the wallet can change only while pending, not ${state.status}`);
  }
  if (!canPay(state.currency, msg.chain, msg.coin) || msg.address === "") {
    return reject(
      state,
      "wallet_invalid",
      `${msg.coin} on ${msg.chain} cannot pay a ${state.currency} payment`,
    );
  }
  const quote = msg.quote ?? null;
  if (needsQuote(state.currency, msg.coin)) {
    if (quote === null || quote.rate <= 0n || quote.expiresAt > state.expiresAt) {
      return reject(state, "quote_invalid", `${msg.coin} for a USD payment needs a quote ending by expiry`);
    }
    if (msg.amountDue !== quotedAmount(state.amount, msg.coin, quote.rate)) {
      return reject(state, "amount_due_mismatch", "amountDue is not the USD amount at the quoted rate");
    }
  } else {
    if (quote !== null) return reject(state, "quote_invalid", `${msg.coin} pays at a fixed rate, no quote`);
    if (msg.amountDue !== toCoinUnits(state.amount, state.currency, msg.coin)) {
      return reject(state, "amount_due_mismatch", "amountDue is not the payment amount in coin units");
    }
  }
  const current = state.wallet;
  if (
    current !== null &&
    current.chain === msg.chain &&
    current.coin === msg.coin &&
    current.address === msg.address &&
    current.amountDue === msg.amountDue &&
    (current.quote?.rate ?? null) === (quote?.rate ?? null) &&
    (current.quote?.expiresAt ?? null) === (quote?.expiresAt ?? null)
  ) {
    return reject(state, "duplicate", "this wallet is already assigned");
  }
  // A transfer returned for arriving after its quote is refunded from the current address:
  // the address stays until that refund is sent.
  const refundingHere = state.refunds.some((r) => r.from === "deposit" && r.txid === null && !r.simulated);
  if (current !== null && current.address !== msg.address && refundingHere) {
    return reject(state, "not_applicable", "a returned transfer is still being refunded from this address");
  }
  // A fresh quote on the same address replaces the ended one (same wallet, new amount).
  const wallet: DepositWallet = {
    chain: msg.chain,
    coin: msg.coin,
    address: msg.address,
    amountDue: msg.amountDue,
    ...(quote === null ? {} : { quote: { rate: quote.rate, expiresAt: quote.expiresAt, ended: false } }),
  };
  return { state: { ...state, wallet }, effects: [] };
}

function onTransferSeen(state: PaymentState, msg: PaymentMessageOf<"transfer_seen">): Decision {
  const wallet = state.wallet;
  if (wallet === null || wallet.address === null) return reject(state, "no_wallet", "no deposit wallet yet");
  if (msg.amount <= 0n) return reject(state, "invalid_message", "transfer amount must be positive");
  if (state.transfers.some((t) => t.transferId === msg.transferId)) {
    return reject(state, "duplicate", "transfer already known");
  }
  if (msg.coin !== wallet.coin)
    return reject(state, "coin_mismatch", `expected ${wallet.coin}, saw ${msg.coin}`);
  if (!isOpen(state.status)) {
    return reject(state, "not_applicable", `a ${state.status} payment does not wait for transfers`);
  }
  if (state.expiryReached) return reject(state, "after_expiry", "seen after expiry; returned when final");
  if (quoteEnded(wallet))
    return reject(state, "quote_ended", "seen after the quote ended; returned when final");

  const record = transferRecord(msg, "seen");
  const next: PaymentState = { ...state, transfers: withTransfer(state, record) };
  return receiving(next);
}

function onTransferFinal(state: PaymentState, msg: PaymentMessageOf<"transfer_final">): Decision {
  const wallet = state.wallet;
  const address = wallet?.address ?? null;
  if (wallet === null || address === null) return reject(state, "no_wallet", "no deposit wallet yet");
  if (msg.amount <= 0n) return reject(state, "invalid_message", "transfer amount must be positive");
  const known = state.transfers.find((t) => t.transferId === msg.transferId);
  if (known !== undefined && (known.status === "counted" || known.status === "returned")) {
    return reject(state, "duplicate", "transfer already final");
  }
  if (msg.coin !== wallet.coin)
    return reject(state, "coin_mismatch", `expected ${wallet.coin}, got ${msg.coin}`);

  // A transfer seen before expiry (or before the quote ended) was sent in time even if it
  // turns final after it.
  const inTime =
    isOpen(state.status) && (known?.status === "seen" || (!state.expiryReached && !quoteEnded(wallet)));
  if (!inTime) return returnLateTransfer(state, wallet, msg);

  const record = transferRecord(msg, "counted");
  const next: PaymentState = {
    ...state,
    transfers: withTransfer(state, record),
    amountReceived: state.amountReceived + msg.amount,
  };
  if (next.amountReceived >= wallet.amountDue) return confirm(next, wallet, address, record);
  if (next.expiryReached && outstandingTransfers(next).length === 0) return resolveExpiry(next, wallet);
  return receiving(next);
}

/** Funds arrived toward the amount due: a pending payment is confirming from now on. */
function receiving(next: PaymentState): Decision {
  if (next.status === "pending") {
    return { state: { ...next, status: "confirming" }, effects: [event("payment.confirming")] };
  }
  return { state: next, effects: [] };
}

/** A transfer as the payment keeps it, from the watcher's report. */
function transferRecord(
  msg: {
    transferId: string;
    coin: Coin;
    amount: bigint;
    sender: string;
    attestation?: TransferAttestation | null;
  },
  status: TransferRecord["status"],
): TransferRecord {
  return {
    transferId: msg.transferId,
    coin: msg.coin,
    amount: msg.amount,
    sender: msg.sender,
    status,
    ...(msg.attestation ? { attestation: msg.attestation } : {}),
  };
}

/**
 * `amount` of `transfer` going back to its sender, with what the signer needs to allow it: the
 * watcher's attestation of the transfer and the transfer's whole amount.
 */
function refundOf(
  state: PaymentState,
  wallet: DepositWallet,
  transfer: { transferId: string; sender: string; amount: bigint; attestation?: TransferAttestation | null },
  kind: RefundKind,
  amount: bigint,
  from: RefundSource,
): Refund {
  return {
    refundId: refundIdFor(state.id, transfer.transferId, kind),
    kind,
    transferId: transfer.transferId,
    chain: wallet.chain,
    coin: wallet.coin,
    amount,
    to: transfer.sender,
    from,
    simulated: false,
    ...(transfer.attestation ? { attestation: transfer.attestation, transferAmount: transfer.amount } : {}),
  };
}

function returnLateTransfer(
  state: PaymentState,
  wallet: DepositWallet,
  msg: PaymentMessageOf<"transfer_final">,
): Decision {
  const refund = refundOf(state, wallet, msg, "late", msg.amount, "deposit");
  const record = transferRecord(msg, "returned");
  return {
    state: {
      ...state,
      transfers: withTransfer(state, record),
      refunds: [...state.refunds, { ...refund, txid: null }],
    },
    effects: [refundEffect(refund)],
  };
}

/** The amount due is covered: sweep everything received, return any surplus. */
function confirm(
  state: PaymentState,
  wallet: DepositWallet,
  address: string,
  crossing: TransferRecord,
): Decision {
  const effects: PaymentEffect[] = [
    // A transfer can turn final before its `seen` report is handled (a watcher catching up
    // reports both at once, and consumers run them concurrently): the payment still passes
    // through confirming, so merchants always get confirming → confirmed → completed.
    ...(state.status === "pending" ? [event("payment.confirming")] : []),
    event("payment.confirmed"),
    { type: "sweep", chain: wallet.chain, coin: wallet.coin, address, amount: state.amountReceived },
  ];
  const surplus = state.amountReceived - wallet.amountDue;
  const refunds = [...state.refunds];
  if (surplus > 0n) {
    const refund = refundOf(state, wallet, crossing, "overpayment", surplus, "vault");
    refunds.push({ ...refund, txid: null });
    effects.push(refundEffect(refund));
  }
  return { state: { ...state, status: "confirmed", overpaidAmount: surplus, refunds }, effects };
}

/** Expiry with nothing outstanding: expired if nothing arrived, else underpaid and return it all. */
function resolveExpiry(state: PaymentState, wallet: DepositWallet | null): Decision {
  if (state.amountReceived === 0n || wallet === null) {
    return { state: { ...state, status: "expired" }, effects: [event("payment.expired")] };
  }
  const refunds = state.transfers
    .filter((t) => t.status === "counted")
    .map((t) => refundOf(state, wallet, t, "underpayment", t.amount, "deposit"));
  return {
    state: {
      ...state,
      status: "underpaid",
      refunds: [...state.refunds, ...refunds.map((r) => ({ ...r, txid: null }))],
    },
    effects: [event("payment.underpaid"), ...refunds.map(refundEffect)],
  };
}

function onTransferDropped(state: PaymentState, msg: PaymentMessageOf<"transfer_dropped">): Decision {
  const known = state.transfers.find((t) => t.transferId === msg.transferId);
  if (known === undefined) return reject(state, "unknown_transfer", "no such transfer");
  if (known.status === "dropped") return reject(state, "duplicate", "transfer already dropped");
  if (known.status !== "seen") return reject(state, "not_applicable", "a final transfer cannot be dropped");

  const next: PaymentState = { ...state, transfers: withTransfer(state, { ...known, status: "dropped" }) };
  if (isOpen(next.status) && next.expiryReached && outstandingTransfers(next).length === 0) {
    return resolveExpiry(next, next.wallet);
  }
  return { state: next, effects: [] };
}

function onExpire(state: PaymentState, msg: PaymentMessageOf<"expire">): Decision {
  if (!isOpen(state.status))
    return reject(state, "not_applicable", `a ${state.status} payment cannot expire`);
  if (state.expiryReached) return reject(state, "duplicate", "expiry already reached");
  if (msg.now < state.expiresAt) return reject(state, "not_expired", "expiresAt is still ahead");

  const next: PaymentState = { ...state, expiryReached: true };
  if (outstandingTransfers(next).length > 0) return { state: next, effects: [] };
  return resolveExpiry(next, next.wallet);
}

function onQuoteExpire(state: PaymentState, msg: PaymentMessageOf<"quote_expire">): Decision {
  const wallet = state.wallet;
  const quote = wallet?.quote ?? null;
  if (wallet === null || quote === null || quote.expiresAt !== msg.expiresAt) {
    return reject(state, "not_applicable", "the wallet has no such quote");
  }
  if (quote.ended) return reject(state, "duplicate", "the quote already ended");
  if (msg.now < quote.expiresAt) return reject(state, "not_expired", "the quote is still running");
  const ended: DepositWallet = { ...wallet, quote: { ...quote, ended: true } };
  return { state: { ...state, wallet: ended }, effects: [] };
}

function onSweepDone(state: PaymentState, msg: PaymentMessageOf<"sweep_done">): Decision {
  if (state.status !== "confirmed" || state.wallet === null) {
    return reject(state, "not_applicable", `nothing to sweep in a ${state.status} payment`);
  }
  if (msg.txid === "") return reject(state, "invalid_message", "txid must not be empty");
  let valued = state;
  const rate = msg.usdRate ?? null;
  if (isPriced(state.currency) && rate !== null && rate > 0n) {
    // SOL/SUI payments pay the fee at the price of completion; without a fresh price the fee
    // fixed at creation (at the creation price) stands.
    const fee = computeFee(state.amount, state.currency, pricesWith(state.currency, rate));
    valued = { ...state, fee, usdRateAtCompletion: rate };
  }
  const credit = creditFor(valued, state.wallet);
  return {
    state: { ...valued, status: "completed", sweepTxid: msg.txid, credit },
    effects: [event("payment.completed"), { type: "credit", ...credit }],
  };
}

function onRefundSent(state: PaymentState, msg: PaymentMessageOf<"refund_sent">): Decision {
  const refund = state.refunds.find((r) => r.refundId === msg.refundId);
  if (refund === undefined) return reject(state, "unknown_refund", "no such refund");
  if (refund.txid !== null || refund.simulated) return reject(state, "duplicate", "refund already recorded");
  if (msg.txid === "") return reject(state, "invalid_message", "txid must not be empty");

  const next: PaymentState = {
    ...state,
    refunds: state.refunds.map((r) => (r.refundId === msg.refundId ? { ...r, txid: msg.txid } : r)),
  };
  if ((next.status === "underpaid" || next.status === "expired") && allRefundsSent(next)) {
    return { state: { ...next, status: "refunded" }, effects: [event("payment.refunded")] };
  }
  return { state: next, effects: hasOwnNotice(refund) ? [refundNotice(refund)] : [] };
}

function onFail(state: PaymentState, msg: PaymentMessageOf<"fail">): Decision {
  switch (state.status) {
    case "confirming":
    case "confirmed":
    case "underpaid":
      return {
        state: { ...state, status: "failed", failureReason: msg.reason },
        effects: [event("payment.failed")],
      };
    case "pending":
    case "completed":
    case "refunded":
    case "expired":
    case "failed":
      return reject(state, "not_applicable", `a ${state.status} payment cannot fail`);
    default:
      return assertNever(state.status, "payment status");
  }
}

function onSimulate(state: PaymentState, msg: PaymentMessageOf<"simulate">): Decision {
  if (state.mode !== "test") return reject(state, "live_mode", "only test payments can be simulated");
  if (state.status !== "pending")
    return reject(state, "not_applicable", `a ${state.status} payment cannot be simulated`);
  const base: PaymentState = { ...state, wallet: simulatedWallet(state), simulated: true };
  switch (msg.outcome) {
    case "paid": {
      const completing = completingSimulation(base);
      const credit = creditFor(completing, completing.wallet!);
      return {
        state: { ...completing, status: "completed", amountReceived: completing.wallet!.amountDue, credit },
        effects: [event("payment.completed"), { type: "credit", ...credit }],
      };
    }
    case "overpaid":
      return simulateOverpaid(base);
    case "underpaid":
      return simulateUnderpaid(state, base);
    case "expired":
      return {
        state: { ...base, status: "expired", expiryReached: true },
        effects: [event("payment.expired")],
      };
    default:
      return assertNever(msg.outcome, "simulated outcome");
  }
}

/**
 * The wallet a simulation settles in: the one chosen, or, when the checkout simulates before the
 * customer picked a coin, the currency's first option (coinsForPayment lists at least one).
 */
function simulatedWallet(state: PaymentState): DepositWallet {
  const option = coinsForPayment(state.currency)[0]!;
  return (
    state.wallet ?? {
      chain: option.chain,
      coin: option.coin,
      address: null,
      amountDue: toCoinUnits(state.amount, state.currency, option.coin),
    }
  );
}

/** Test mode values SOL/SUI at fixed prices, the same at creation and at completion. */
function completingSimulation(base: PaymentState): PaymentState {
  return { ...base, usdRateAtCompletion: base.usdRateAtCreation ?? null };
}

function simulatedRefund(state: PaymentState, kind: RefundKind, amount: bigint, from: RefundSource): Refund {
  const wallet = state.wallet!;
  return {
    refundId: `${state.id}:simulated:${kind}`,
    kind,
    transferId: null,
    chain: wallet.chain,
    coin: wallet.coin,
    amount,
    to: null,
    from,
    simulated: true,
  };
}

function simulateOverpaid(base: PaymentState): Decision {
  const completing = completingSimulation(base);
  const wallet = completing.wallet!;
  // A tenth more than due (at least one base unit) makes a visible surplus.
  const surplus = wallet.amountDue / 10n > 0n ? wallet.amountDue / 10n : 1n;
  const credit = creditFor(completing, wallet);
  const refund = simulatedRefund(completing, "overpayment", surplus, "vault");
  return {
    state: {
      ...completing,
      status: "completed",
      amountReceived: wallet.amountDue + surplus,
      overpaidAmount: surplus,
      credit,
      refunds: [{ ...refund, txid: null }],
    },
    // A simulated refund counts as sent at once, so its notice is due now.
    effects: [
      event("payment.completed"),
      { type: "credit", ...credit },
      refundEffect(refund),
      refundNotice(refund),
    ],
  };
}

/** `state` as it was, for a rejection, which changes nothing; `base` with the simulation's wallet. */
function simulateUnderpaid(state: PaymentState, base: PaymentState): Decision {
  const received = base.wallet!.amountDue / 2n;
  if (received === 0n) return reject(state, "cannot_simulate", "the amount due is too small to underpay");
  const refund = simulatedRefund(base, "underpayment", received, "deposit");
  return {
    state: {
      ...base,
      status: "refunded",
      expiryReached: true,
      amountReceived: received,
      refunds: [{ ...refund, txid: null }],
    },
    effects: [event("payment.underpaid"), refundEffect(refund), event("payment.refunded")],
  };
}

const HANDLERS: {
  [T in PaymentMessageType]: (state: PaymentState, msg: PaymentMessageOf<T>) => Decision;
} = {
  wallet_assigned: onWalletAssigned,
  transfer_seen: onTransferSeen,
  transfer_final: onTransferFinal,
  transfer_dropped: onTransferDropped,
  expire: onExpire,
  quote_expire: onQuoteExpire,
  sweep_done: onSweepDone,
  refund_sent: onRefundSent,
  fail: onFail,
  simulate: onSimulate,
};
