import { computeFee, initialPaymentState, type PaymentState, STATIC_TEST_PRICES } from "@gateway/domain";
import { describe, expect, it } from "vitest";
import { payableBySolanaPay } from "./payable.js";

const NOW = 1_800_000_000_000;

function live(overrides: Partial<PaymentState> = {}): PaymentState {
  const base = initialPaymentState({
    id: "00000000-0000-4000-8000-000000000001",
    mode: "live",
    currency: "USD",
    amount: 1250n,
    fee: computeFee(1250n, "USD", STATIC_TEST_PRICES),
    expiresAt: NOW + 60_000,
  });
  return {
    ...base,
    wallet: { chain: "solana", coin: "USDC", address: "Dep1", amountDue: 12_500_000n },
    ...overrides,
  };
}

describe("payableBySolanaPay", () => {
  it("asks for the whole amount due when nothing was sent", () => {
    expect(payableBySolanaPay(live(), NOW)).toEqual({
      ok: true,
      coin: "USDC",
      address: "Dep1",
      amount: 12_500_000n,
    });
  });

  it("asks only for what is still due after seen and counted transfers", () => {
    const transfers = [
      { transferId: "a", coin: "USDC" as const, amount: 5_000_000n, sender: "x", status: "counted" as const },
      { transferId: "b", coin: "USDC" as const, amount: 1_000_000n, sender: "x", status: "seen" as const },
      { transferId: "c", coin: "USDC" as const, amount: 9_000_000n, sender: "x", status: "dropped" as const },
    ];
    const state = live({ status: "confirming", transfers });
    expect(payableBySolanaPay(state, NOW)).toMatchObject({ ok: true, amount: 6_500_000n });
  });

  it.each([
    ["a test payment", live({ mode: "test" }), /test payment/],
    ["a completed payment", live({ status: "completed" }), /completed and can no longer be paid/],
    ["an expired payment", live({ expiresAt: NOW }), /expired/],
    ["no wallet", live({ wallet: null }), /Choose Solana/],
    [
      "a Sui wallet",
      live({ wallet: { chain: "sui", coin: "USDC", address: "0x1", amountDue: 1n } }),
      /Choose Solana/,
    ],
    [
      "an ended quote",
      live({
        wallet: {
          chain: "solana",
          coin: "SOL",
          address: "Dep1",
          amountDue: 1n,
          quote: { rate: 1n, expiresAt: NOW + 1000, ended: true },
        },
      }),
      /new quote/,
    ],
  ])("refuses %s", (_name, state, message) => {
    const answer = payableBySolanaPay(state, NOW);
    expect(answer.ok).toBe(false);
    if (!answer.ok) expect(answer.message).toMatch(message);
  });
});
