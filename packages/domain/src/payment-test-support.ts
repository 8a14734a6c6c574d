// Builders shared by the payment actor's tests: a payment, messages, and a fold that keeps
// every effect, so tests read as the message sequence they describe.

import type { Coin, Currency, Mode } from "./money.js";
import {
  type Decision,
  decide,
  initialPaymentState,
  type PaymentEffect,
  type PaymentEventType,
  type PaymentMessage,
  type PaymentMessageOf,
  type PaymentState,
} from "./payment.js";

export const PAYMENT_ID = "5b0f9c2e-8a7d-4d3c-9a41-0c6f2d7e1a11";
export const EXPIRES_AT = Date.parse("2026-11-22T00:30:00.000Z");
export const ADDRESS = "DepositAddr1111111111111111111111111111111111";
export const CUSTOMER = "Customer111111111111111111111111111111111111";

/** 12.50 USD with its 0.13 USD fee, in test mode unless told otherwise. */
export function newPayment(
  options: { mode?: Mode; currency?: Currency; amount?: bigint; fee?: bigint } = {},
): PaymentState {
  return initialPaymentState({
    id: PAYMENT_ID,
    mode: options.mode ?? "test",
    currency: options.currency ?? "USD",
    amount: options.amount ?? 1250n,
    fee: options.fee ?? 13n,
    expiresAt: EXPIRES_AT,
  });
}

/** 12.50 USD in USDC on Solana. */
export const USDC_DUE = 12_500_000n;

export function walletUsdc(overrides: Partial<PaymentMessageOf<"wallet_assigned">> = {}) {
  return {
    type: "wallet_assigned",
    chain: "solana",
    coin: "USDC",
    address: ADDRESS,
    amountDue: USDC_DUE,
    ...overrides,
  } satisfies PaymentMessage;
}

export function seen(transferId: string, amount: bigint, coin: Coin = "USDC", sender = CUSTOMER) {
  return { type: "transfer_seen", transferId, coin, amount, sender } satisfies PaymentMessage;
}

export function final(transferId: string, amount: bigint, coin: Coin = "USDC", sender = CUSTOMER) {
  return { type: "transfer_final", transferId, coin, amount, sender } satisfies PaymentMessage;
}

export const EXPIRE = { type: "expire", now: EXPIRES_AT } satisfies PaymentMessage;

export interface Run {
  state: PaymentState;
  effects: PaymentEffect[];
  decisions: Decision[];
}

/** Applies messages in order, collecting all effects. */
export function run(state: PaymentState, ...messages: PaymentMessage[]): Run {
  const decisions: Decision[] = [];
  let current = state;
  for (const message of messages) {
    const decision = decide(current, message);
    decisions.push(decision);
    current = decision.state;
  }
  return { state: current, effects: decisions.flatMap((d) => d.effects), decisions };
}

export function eventsOf(effects: readonly PaymentEffect[]): PaymentEventType[] {
  return effects.flatMap((e) => (e.type === "event" ? [e.event] : []));
}

export function refundsOf(effects: readonly PaymentEffect[]) {
  return effects.flatMap((e) => (e.type === "refund" ? [e] : []));
}

export function creditsOf(effects: readonly PaymentEffect[]) {
  return effects.flatMap((e) => (e.type === "credit" ? [e] : []));
}

export function sweepsOf(effects: readonly PaymentEffect[]) {
  return effects.flatMap((e) => (e.type === "sweep" ? [e] : []));
}
