// Quotes: a USD payment paid in SOL or SUI at a locked rate, and SOL/SUI payments valued at
// creation and at completion. docs/payment-lifecycle.md, "Quotes", is the rule book.

import { describe, expect, it } from "vitest";
import { computeFee } from "./fees.js";
import { decide, type PaymentMessage, type PaymentMessageOf } from "./payment.js";
import { deserializePaymentState, serializePaymentState } from "./payment-codec.js";
import {
  ADDRESS,
  CUSTOMER,
  creditsOf,
  EXPIRE,
  EXPIRES_AT,
  eventsOf,
  final,
  newPayment,
  refundsOf,
  run,
  seen,
  sweepsOf,
} from "./payment-test-support.js";
import { formatMicroUsd, quotedAmount, STATIC_TEST_PRICES } from "./prices.js";

const RATE = 150_000_000n; // 150.00 USD per SOL
const QUOTE_ENDS = EXPIRES_AT - 15 * 60_000;
/** 12.50 USD at 150.00 USD/SOL: 0.0833333333… SOL, rounded up to the lamport. */
const SOL_DUE = 83_333_334n;

function walletSol(overrides: Partial<PaymentMessageOf<"wallet_assigned">> = {}) {
  return {
    type: "wallet_assigned",
    chain: "solana",
    coin: "SOL",
    address: ADDRESS,
    amountDue: SOL_DUE,
    quote: { rate: RATE, expiresAt: QUOTE_ENDS },
    ...overrides,
  } satisfies PaymentMessage;
}

const QUOTE_END = { type: "quote_expire", expiresAt: QUOTE_ENDS, now: QUOTE_ENDS } satisfies PaymentMessage;

describe("quotedAmount", () => {
  it("is the USD amount at the rate, rounded up to the coin's base unit", () => {
    expect(quotedAmount(1250n, "SOL", RATE)).toBe(SOL_DUE);
    // Exact divisions are not rounded: 15.00 USD at 150.00 is 0.1 SOL.
    expect(quotedAmount(1500n, "SOL", RATE)).toBe(100_000_000n);
    // SUI at 3.501234: 10.00 USD is 2.8561358… SUI.
    expect(quotedAmount(1000n, "SUI", 3_501_234n)).toBe(2_856_135_866n);
    // Never worth less than the USD amount at the rate, and never a whole unit more.
    for (const [cents, rate] of [
      [1n, 1n],
      [99n, 7_777_777n],
      [100_000_000n, 123_456_789n],
    ] as const) {
      const units = quotedAmount(cents, "SOL", rate);
      expect(units * rate).toBeGreaterThanOrEqual(cents * 10_000n * 1_000_000_000n);
      expect((units - 1n) * rate).toBeLessThan(cents * 10_000n * 1_000_000_000n);
    }
  });

  it("refuses a rate that is not positive", () => {
    expect(() => quotedAmount(1250n, "SOL", 0n)).toThrow(/rate/);
    expect(() => quotedAmount(1250n, "SOL", -1n)).toThrow(/rate/);
  });

  it("formats rates as USD decimals", () => {
    expect(formatMicroUsd(RATE)).toBe("150.00");
    expect(formatMicroUsd(3_501_234n)).toBe("3.501234");
    expect(formatMicroUsd(1n)).toBe("0.000001");
  });
});

describe("a USD payment paid in SOL at a quote", () => {
  it("locks the amount due at the quote's rate", () => {
    const { state, rejected } = decide(newPayment({ mode: "live" }), walletSol());
    expect(rejected).toBeUndefined();
    expect(state.wallet).toEqual({
      chain: "solana",
      coin: "SOL",
      address: ADDRESS,
      amountDue: SOL_DUE,
      quote: { rate: RATE, expiresAt: QUOTE_ENDS, ended: false },
    });
  });

  it.each<[string, PaymentMessage, string]>([
    ["no quote", walletSol({ quote: null }), "quote_invalid"],
    ["a zero rate", walletSol({ quote: { rate: 0n, expiresAt: QUOTE_ENDS } }), "quote_invalid"],
    ["a quote past expiry", walletSol({ quote: { rate: RATE, expiresAt: EXPIRES_AT + 1 } }), "quote_invalid"],
    ["an amount off the rate", walletSol({ amountDue: SOL_DUE - 1n }), "amount_due_mismatch"],
    ["SOL on Sui", walletSol({ chain: "sui" }), "wallet_invalid"],
    [
      "a quote on a stablecoin",
      walletSol({ coin: "USDC", amountDue: 12_500_000n, quote: { rate: RATE, expiresAt: QUOTE_ENDS } }),
      "quote_invalid",
    ],
  ])("refuses %s", (_label, message, code) => {
    const decision = decide(newPayment(), message);
    expect(decision.rejected?.code).toBe(code);
    expect(decision.state.wallet).toBeNull();
  });

  it("completes when paid in time; the fee is the USD fee in SOL at the quote, the value is the USD amount", () => {
    const { state, effects } = run(newPayment({ mode: "live" }), walletSol(), final("tx1", SOL_DUE, "SOL"), {
      type: "sweep_done",
      txid: "sweep",
    });
    expect(state.status).toBe("completed");
    expect(sweepsOf(effects)).toEqual([
      { type: "sweep", chain: "solana", coin: "SOL", address: ADDRESS, amount: SOL_DUE },
    ]);
    // 0.13 USD at 150.00 is 866,666.67 lamports, rounded up so the fee is never worth less.
    expect(creditsOf(effects)).toEqual([
      {
        type: "credit",
        chain: "solana",
        coin: "SOL",
        gross: SOL_DUE,
        fee: 866_667n,
        net: SOL_DUE - 866_667n,
        usdValue: 12_500_000n,
        usdRate: RATE,
      },
    ]);
  });

  it("counts a transfer seen before the quote ended even when it turns final after", () => {
    const { state } = run(
      newPayment(),
      walletSol(),
      seen("tx1", SOL_DUE, "SOL"),
      QUOTE_END,
      final("tx1", SOL_DUE, "SOL"),
    );
    expect(state.status).toBe("confirmed");
    expect(state.amountReceived).toBe(SOL_DUE);
  });

  it("returns a transfer that arrives after the quote ended; the payment stays pending", () => {
    const ended = run(newPayment(), walletSol(), QUOTE_END).state;
    expect(ended.wallet?.quote?.ended).toBe(true);
    expect(decide(ended, seen("tx1", SOL_DUE, "SOL")).rejected?.code).toBe("quote_ended");
    const { state, effects } = run(ended, final("tx1", SOL_DUE, "SOL"));
    expect(state.status).toBe("pending");
    expect(state.amountReceived).toBe(0n);
    expect(eventsOf(effects)).toEqual([]);
    expect(refundsOf(effects)).toEqual([
      expect.objectContaining({ kind: "late", amount: SOL_DUE, to: CUSTOMER, from: "deposit" }),
    ]);
  });

  it("takes a fresh quote on the same address after the old one ended, and completes at the new rate", () => {
    const newRate = 125_000_000n;
    const newDue = quotedAmount(1250n, "SOL", newRate);
    const requote = walletSol({ amountDue: newDue, quote: { rate: newRate, expiresAt: EXPIRES_AT } });
    const { state, effects } = run(
      newPayment(),
      walletSol(),
      QUOTE_END,
      requote,
      final("tx2", newDue, "SOL"),
      {
        type: "sweep_done",
        txid: "s",
      },
    );
    expect(state.status).toBe("completed");
    expect(state.wallet?.quote).toEqual({ rate: newRate, expiresAt: EXPIRES_AT, ended: false });
    expect(creditsOf(effects)[0]).toMatchObject({ gross: newDue, usdRate: newRate, usdValue: 12_500_000n });
  });

  it("keeps the address while a transfer returned after its quote is still being refunded", () => {
    const returned = run(newPayment(), walletSol(), QUOTE_END, final("tx1", SOL_DUE, "SOL")).state;
    const usdc = {
      type: "wallet_assigned",
      chain: "solana",
      coin: "USDC",
      address: "OtherAddress",
      amountDue: 12_500_000n,
    } satisfies PaymentMessage;
    expect(decide(returned, usdc).rejected?.code).toBe("not_applicable");
    const refunded = run(returned, {
      type: "refund_sent",
      refundId: returned.refunds[0]!.refundId,
      txid: "r1",
    }).state;
    expect(refunded.status).toBe("pending");
    expect(decide(refunded, usdc).rejected).toBeUndefined();
  });

  it("a short transfer under the quote waits for the payment's expiry, then everything is returned", () => {
    const { state, effects } = run(
      newPayment(),
      walletSol(),
      final("tx1", SOL_DUE - 1n, "SOL"),
      QUOTE_END,
      EXPIRE,
    );
    expect(state.status).toBe("underpaid");
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.underpaid"]);
    expect(refundsOf(effects)).toEqual([
      expect.objectContaining({ kind: "underpayment", amount: SOL_DUE - 1n }),
    ]);
  });

  it("refuses quote_expire before its time, for another quote, and twice", () => {
    const quoted = run(newPayment(), walletSol()).state;
    expect(decide(quoted, { ...QUOTE_END, now: QUOTE_ENDS - 1 }).rejected?.code).toBe("not_expired");
    expect(decide(quoted, { ...QUOTE_END, expiresAt: QUOTE_ENDS + 1 }).rejected?.code).toBe("not_applicable");
    const ended = run(quoted, QUOTE_END).state;
    expect(decide(ended, QUOTE_END).rejected?.code).toBe("duplicate");
    expect(decide(newPayment(), QUOTE_END).rejected?.code).toBe("not_applicable");
  });

  it("round-trips a quoted state through JSON", () => {
    const state = run(newPayment(), walletSol(), QUOTE_END).state;
    expect(deserializePaymentState(JSON.parse(JSON.stringify(serializePaymentState(state))))).toEqual(state);
  });
});

describe("SOL and SUI payments are valued at creation and at completion", () => {
  // 0.05 SOL: 1% is 0.0005 SOL, worth less than the 0.10 USD minimum at either price.
  const amount = 50_000_000n;
  const created = 150_000_000n;
  const completed = 200_000_000n;

  function solPayment() {
    const fee = computeFee(amount, "SOL", { ...STATIC_TEST_PRICES, SOL: created });
    const payment = newPayment({ mode: "live", currency: "SOL", amount, fee });
    return { ...payment, usdRateAtCreation: created };
  }
  const solWallet = {
    type: "wallet_assigned",
    chain: "solana",
    coin: "SOL",
    address: ADDRESS,
    amountDue: amount,
  } satisfies PaymentMessage;

  it("charges the fee at the completion price when settlement knows one", () => {
    expect(solPayment().fee).toBe(666_667n); // 0.10 USD at 150.00
    const { state, effects } = run(solPayment(), solWallet, final("tx1", amount, "SOL"), {
      type: "sweep_done",
      txid: "s",
      usdRate: completed,
    });
    expect(state.usdRateAtCreation).toBe(created);
    expect(state.usdRateAtCompletion).toBe(completed);
    expect(state.fee).toBe(500_000n); // 0.10 USD at 200.00
    expect(creditsOf(effects)[0]).toMatchObject({
      fee: 500_000n,
      net: amount - 500_000n,
      usdRate: completed,
      usdValue: 10_000_000n, // 0.05 SOL at 200.00
    });
  });

  it("keeps the creation fee and value when no price was fresh at completion", () => {
    const { state, effects } = run(solPayment(), solWallet, final("tx1", amount, "SOL"), {
      type: "sweep_done",
      txid: "s",
    });
    expect(state.usdRateAtCompletion).toBeNull();
    expect(state.fee).toBe(666_667n);
    expect(creditsOf(effects)[0]).toMatchObject({ fee: 666_667n, usdRate: created, usdValue: 7_500_000n });
  });
});
