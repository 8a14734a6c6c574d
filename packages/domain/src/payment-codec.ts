// JSON form of the payment actor's state, messages and effects. Everything is plain JSON
// already except bigints, which become decimal strings ("12500000"); decoding validates
// every field, because what comes back from the database or the bus is not trusted to
// have the shape the actor needs.

import { CHAINS, COINS, CURRENCIES } from "./money.js";
import {
  type Credit,
  type DepositWallet,
  PAYMENT_EVENT_TYPES,
  PAYMENT_STATUSES,
  type PaymentEffect,
  type PaymentMessage,
  type PaymentState,
  type Refund,
  type RefundRecord,
  type TransferAttestation,
  type TransferRecord,
  type WalletQuote,
} from "./payment.js";

/** T with every bigint replaced by its decimal string: the JSON shape. */
export type Serialized<T> = T extends bigint
  ? string
  : T extends readonly (infer U)[]
    ? Serialized<U>[]
    : T extends object
      ? { [K in keyof T]: Serialized<T[K]> }
      : T;

export type SerializedPaymentState = Serialized<PaymentState>;
export type SerializedPaymentMessage = Serialized<PaymentMessage>;
export type SerializedPaymentEffect = Serialized<PaymentEffect>;

export class PaymentCodecError extends Error {
  override readonly name = "PaymentCodecError";
  /** Where in the value the problem is, e.g. `$.refunds[0].amount`. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.path = path;
  }
}

/**
 * What `JSON.parse(JSON.stringify(value))` would give with bigints as decimal strings, built
 * directly: a stringify replacer leaves V8's fast path, and the round trip through text cost the
 * API a visible share of its CPU per payment. The actor's values are plain data (objects, arrays,
 * strings, finite numbers, booleans, null, bigints); as in JSON, undefined properties are left out.
 */
function toJson<T>(value: T): Serialized<T> {
  return plainJson(value) as Serialized<T>;
}

function plainJson(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : plainJson(item)));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = plainJson(item);
  return out;
}

export function serializePaymentState(state: PaymentState): SerializedPaymentState {
  return toJson(state);
}

export function serializePaymentMessage(message: PaymentMessage): SerializedPaymentMessage {
  return toJson(message);
}

export function serializePaymentEffect(effect: PaymentEffect): SerializedPaymentEffect {
  return toJson(effect);
}

type Decoder<T> = (value: unknown, path: string) => T;

const string: Decoder<string> = (value, path) => {
  if (typeof value !== "string") throw new PaymentCodecError(path, "expected a string");
  return value;
};

const boolean: Decoder<boolean> = (value, path) => {
  if (typeof value !== "boolean") throw new PaymentCodecError(path, "expected a boolean");
  return value;
};

const finiteNumber: Decoder<number> = (value, path) => {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new PaymentCodecError(path, "expected a finite number");
  }
  return value;
};

const INTEGER = /^-?(0|[1-9][0-9]*)$/;

const bigint: Decoder<bigint> = (value, path) => {
  if (typeof value !== "string" || !INTEGER.test(value) || value === "-0") {
    throw new PaymentCodecError(path, "expected an integer as a decimal string");
  }
  return BigInt(value);
};

function oneOf<T extends string>(allowed: readonly T[]): Decoder<T> {
  return (value, path) => {
    if (typeof value !== "string" || !allowed.includes(value as T)) {
      throw new PaymentCodecError(path, `expected one of ${allowed.join(", ")}`);
    }
    return value as T;
  };
}

function nullable<T>(decoder: Decoder<T>): Decoder<T | null> {
  return (value, path) => (value === null ? null : decoder(value, path));
}

function array<T>(decoder: Decoder<T>): Decoder<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) throw new PaymentCodecError(path, "expected an array");
    return value.map((item, index) => decoder(item, `${path}[${index}]`));
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const ABSENT_OK = Symbol("absent-ok");

/** A field added after states were stored: absent means null (older rows stay readable). */
function added<T>(decoder: Decoder<T>): Decoder<T | null> {
  return Object.assign(nullable(decoder), { [ABSENT_OK]: true });
}

/** Exactly these fields: a missing one or an unknown one is an error, so nothing is lost silently. */
function object<T>(fields: { [K in keyof T]-?: Decoder<T[K]> }): Decoder<T> {
  return (value, path) => {
    if (!isRecord(value)) throw new PaymentCodecError(path, "expected an object");
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(fields, key)) throw new PaymentCodecError(`${path}.${key}`, "unknown field");
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(fields) as (keyof T & string)[]) {
      if (!Object.hasOwn(value, key)) {
        if (ABSENT_OK in fields[key]) continue;
        throw new PaymentCodecError(`${path}.${key}`, "missing");
      }
      out[key] = fields[key](value[key], `${path}.${key}`);
    }
    return out as T;
  };
}

/** A discriminated union on `type`. */
function tagged<T extends { type: string }>(
  variants: { [K in T["type"]]: Decoder<Extract<T, { type: K }>> },
): Decoder<T> {
  return (value, path) => {
    if (!isRecord(value)) throw new PaymentCodecError(path, "expected an object");
    const tag = value["type"];
    if (typeof tag !== "string" || !Object.hasOwn(variants, tag)) {
      throw new PaymentCodecError(`${path}.type`, `expected one of ${Object.keys(variants).join(", ")}`);
    }
    return variants[tag as T["type"]](value, path);
  };
}

function literal<T extends string>(expected: T): Decoder<T> {
  return oneOf([expected]);
}

const chain = oneOf(CHAINS);
const coin = oneOf(COINS);

const quote = object<WalletQuote>({ rate: bigint, expiresAt: finiteNumber, ended: boolean });

const walletFields = {
  chain,
  coin,
  address: nullable(string),
  amountDue: bigint,
  quote: added(quote),
};
const wallet = object<DepositWallet>(walletFields);

const attestation = object<TransferAttestation>({ keyId: string, signature: string });

const transfer = object<TransferRecord>({
  transferId: string,
  coin,
  amount: bigint,
  sender: string,
  status: oneOf(["seen", "counted", "returned", "dropped"] as const),
  attestation: added(attestation),
});

const refundFields = {
  refundId: string,
  kind: oneOf(["underpayment", "overpayment", "late"] as const),
  transferId: nullable(string),
  chain,
  coin,
  amount: bigint,
  to: nullable(string),
  from: oneOf(["deposit", "vault"] as const),
  simulated: boolean,
  attestation: added(attestation),
  transferAmount: added(bigint),
};

const refundRecord = object<RefundRecord>({ ...refundFields, txid: nullable(string) });

const creditFields = {
  chain,
  coin,
  gross: bigint,
  fee: bigint,
  net: bigint,
  usdValue: added(bigint),
  usdRate: added(bigint),
};
const credit = object<Credit>(creditFields);

const paymentState = object<PaymentState>({
  id: string,
  mode: oneOf(["test", "live"] as const),
  currency: oneOf(CURRENCIES),
  amount: bigint,
  fee: bigint,
  expiresAt: finiteNumber,
  status: oneOf(PAYMENT_STATUSES),
  wallet: nullable(wallet),
  transfers: array(transfer),
  amountReceived: bigint,
  overpaidAmount: bigint,
  expiryReached: boolean,
  refunds: array(refundRecord),
  sweepTxid: nullable(string),
  credit: nullable(credit),
  failureReason: nullable(string),
  simulated: boolean,
  usdRateAtCreation: added(bigint),
  usdRateAtCompletion: added(bigint),
});

const paymentMessage = tagged<PaymentMessage>({
  wallet_assigned: object({
    type: literal("wallet_assigned"),
    chain,
    coin,
    address: string,
    amountDue: bigint,
    quote: added(object({ rate: bigint, expiresAt: finiteNumber })),
  }),
  transfer_seen: object({
    type: literal("transfer_seen"),
    transferId: string,
    coin,
    amount: bigint,
    sender: string,
  }),
  transfer_final: object({
    type: literal("transfer_final"),
    transferId: string,
    coin,
    amount: bigint,
    sender: string,
    attestation: added(attestation),
  }),
  transfer_dropped: object({ type: literal("transfer_dropped"), transferId: string }),
  expire: object({ type: literal("expire"), now: finiteNumber }),
  quote_expire: object({ type: literal("quote_expire"), expiresAt: finiteNumber, now: finiteNumber }),
  sweep_done: object({ type: literal("sweep_done"), txid: string, usdRate: added(bigint) }),
  refund_sent: object({ type: literal("refund_sent"), refundId: string, txid: string }),
  fail: object({ type: literal("fail"), reason: string }),
  simulate: object({
    type: literal("simulate"),
    outcome: oneOf(["paid", "underpaid", "overpaid", "expired"] as const),
  }),
});

const paymentEffect = tagged<PaymentEffect>({
  event: object({ type: literal("event"), event: oneOf(PAYMENT_EVENT_TYPES) }),
  sweep: object({ type: literal("sweep"), chain, coin, address: string, amount: bigint }),
  refund: object<{ type: "refund" } & Refund>({ type: literal("refund"), ...refundFields }),
  credit: object<{ type: "credit" } & Credit>({ type: literal("credit"), ...creditFields }),
  refund_notice: object({ type: literal("refund_notice"), refundId: string }),
});

/** Inverse of serializePaymentState; throws PaymentCodecError naming the first bad field. */
export function deserializePaymentState(value: unknown): PaymentState {
  return paymentState(value, "$");
}

export function deserializePaymentMessage(value: unknown): PaymentMessage {
  return paymentMessage(value, "$");
}

export function deserializePaymentEffect(value: unknown): PaymentEffect {
  return paymentEffect(value, "$");
}
