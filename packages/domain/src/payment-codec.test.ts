import { describe, expect, it } from "vitest";
import type { PaymentEffect, PaymentMessage } from "./payment.js";
import {
  deserializePaymentEffect,
  deserializePaymentMessage,
  deserializePaymentState,
  PaymentCodecError,
  serializePaymentEffect,
  serializePaymentMessage,
  serializePaymentState,
} from "./payment-codec.js";
import { EXPIRE, final, newPayment, PAYMENT_ID, run, seen, walletUsdc } from "./payment-test-support.js";

function throughJson<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}

function pathOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof PaymentCodecError) return error.path;
    throw error;
  }
  return undefined;
}

// A state that uses every field: a wallet, transfers of each status, refunds, a credit.
const rich = run(
  newPayment(),
  walletUsdc(),
  seen("tx1", 1_000_000n),
  { type: "transfer_dropped", transferId: "tx1" },
  final("tx2", 20_000_000n),
  final("tx3", 5n),
  { type: "sweep_done", txid: "sweep-sig" },
  { type: "refund_sent", refundId: `${PAYMENT_ID}:tx2:overpayment`, txid: "refund-sig" },
).state;

describe("serializePaymentState", () => {
  it("writes bigints as decimal strings and nothing else changes", () => {
    const json = serializePaymentState(rich);
    expect(json.amount).toBe("1250");
    expect(json.amountReceived).toBe("20000000");
    expect(json.overpaidAmount).toBe("7500000");
    expect(json.wallet?.amountDue).toBe("12500000");
    expect(json.credit).toEqual({
      chain: "solana",
      coin: "USDC",
      gross: "12500000",
      fee: "130000",
      net: "12370000",
      usdValue: "12500000",
      usdRate: null,
    });
    expect(json.transfers.map((t) => [t.transferId, t.status, t.amount])).toEqual([
      ["tx1", "dropped", "1000000"],
      ["tx2", "counted", "20000000"],
      ["tx3", "returned", "5"],
    ]);
    expect(json.expiresAt).toBe(rich.expiresAt);
    expect(() => JSON.stringify(json)).not.toThrow();
  });

  it("is exactly what JSON text with bigints as strings would give", () => {
    const viaText = (value: unknown) =>
      JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    for (const state of [newPayment(), rich, { ...rich, usdRateAtCompletion: undefined }]) {
      expect(serializePaymentState(state)).toStrictEqual(viaText(state));
    }
  });

  it("round-trips exactly through JSON text", () => {
    for (const state of [
      newPayment(),
      rich,
      run(newPayment(), { type: "simulate", outcome: "underpaid" }).state,
    ]) {
      expect(deserializePaymentState(throughJson(serializePaymentState(state)))).toEqual(state);
    }
  });

  it("keeps amounts beyond 2^53 exact", () => {
    const big = newPayment({ currency: "SOL", amount: 9_007_199_254_740_993_123n, fee: 1n });
    const back = deserializePaymentState(throughJson(serializePaymentState(big)));
    expect(back.amount).toBe(9_007_199_254_740_993_123n);
  });
});

describe("deserializePaymentState", () => {
  const good = () => throughJson(serializePaymentState(rich)) as Record<string, unknown>;

  it.each<[string, (json: Record<string, unknown>) => void, string]>([
    ["a bigint as a number", (j) => (j["amount"] = 1250), "$.amount"],
    ["a bigint with decimals", (j) => (j["amount"] = "12.50"), "$.amount"],
    ["a bigint with a plus sign", (j) => (j["amount"] = "+1"), "$.amount"],
    ["a bigint with leading zeros", (j) => (j["amount"] = "01"), "$.amount"],
    ["an unknown status", (j) => (j["status"] = "paid"), "$.status"],
    ["an unknown currency", (j) => (j["currency"] = "EUR"), "$.currency"],
    ["a missing field", (j) => delete j["fee"], "$.fee"],
    ["an unknown field", (j) => (j["extra"] = 1), "$.extra"],
    ["a NaN-like expiry", (j) => (j["expiresAt"] = "soon"), "$.expiresAt"],
    [
      "a bad nested transfer",
      (j) => ((j["transfers"] as Array<Record<string, unknown>>)[1]!["status"] = "final"),
      "$.transfers[1].status",
    ],
    [
      "a bad nested refund amount",
      (j) => ((j["refunds"] as Array<Record<string, unknown>>)[0]!["amount"] = null),
      "$.refunds[0].amount",
    ],
    ["a wallet that is not an object", (j) => (j["wallet"] = "solana"), "$.wallet"],
  ])("refuses %s, naming the field", (_label, spoil, path) => {
    const json = good();
    spoil(json);
    expect(pathOf(() => deserializePaymentState(json))).toBe(path);
  });

  it("refuses what is not an object", () => {
    expect(pathOf(() => deserializePaymentState(null))).toBe("$");
    expect(pathOf(() => deserializePaymentState([]))).toBe("$");
    expect(pathOf(() => deserializePaymentState("{}"))).toBe("$");
  });
});

describe("messages and effects", () => {
  const messages: PaymentMessage[] = [
    walletUsdc(),
    seen("tx1", 5n),
    final("tx1", 5n),
    { type: "transfer_dropped", transferId: "tx1" },
    EXPIRE,
    { type: "sweep_done", txid: "s" },
    { type: "refund_sent", refundId: "r", txid: "t" },
    { type: "fail", reason: "why" },
    { type: "simulate", outcome: "overpaid" },
  ];

  it.each(messages.map((m) => [m.type, m] as const))("%s round-trips", (_type, message) => {
    expect(deserializePaymentMessage(throughJson(serializePaymentMessage(message)))).toEqual(message);
  });

  it("refuses an unknown message type or a malformed message", () => {
    expect(pathOf(() => deserializePaymentMessage({ type: "deposit" }))).toBe("$.type");
    expect(
      pathOf(() =>
        deserializePaymentMessage({
          type: "transfer_final",
          transferId: "t",
          coin: "USDC",
          amount: 5,
          sender: "s",
        }),
      ),
    ).toBe("$.amount");
    expect(pathOf(() => deserializePaymentMessage({ type: "simulate", outcome: "lost" }))).toBe("$.outcome");
  });

  it("round-trips every effect kind", () => {
    const effects: PaymentEffect[] = [
      ...run(newPayment(), walletUsdc(), final("tx1", 20_000_000n), { type: "sweep_done", txid: "s" })
        .effects,
      ...run(newPayment(), { type: "simulate", outcome: "underpaid" }).effects,
      ...run(newPayment(), { type: "simulate", outcome: "overpaid" }).effects,
    ];
    expect(new Set(effects.map((e) => e.type))).toEqual(
      new Set(["event", "sweep", "refund", "credit", "refund_notice"]),
    );
    for (const effect of effects) {
      expect(deserializePaymentEffect(throughJson(serializePaymentEffect(effect)))).toEqual(effect);
    }
    expect(pathOf(() => deserializePaymentEffect({ type: "event", event: "payment.paid" }))).toBe("$.event");
  });
});
