import { describe, expect, it } from "vitest";
import { assertNever } from "./assert-never.js";
import { MoneyError } from "./money.js";
import {
  allRefundsSent,
  decide,
  hasOwnNotice,
  initialPaymentState,
  PAYMENT_MESSAGE_TYPES,
  PAYMENT_STATUSES,
  type PaymentEventType,
  type PaymentMessage,
  type PaymentMessageType,
  type PaymentState,
  type PaymentStatus,
  type RejectionCode,
} from "./payment.js";
import {
  ADDRESS,
  CUSTOMER,
  creditsOf,
  EXPIRE,
  EXPIRES_AT,
  eventsOf,
  final,
  newPayment,
  PAYMENT_ID,
  refundsOf,
  run,
  seen,
  sweepsOf,
  USDC_DUE,
  walletUsdc,
} from "./payment-test-support.js";

const OTHER = "Other2222222222222222222222222222222222222222";

describe("initialPaymentState", () => {
  it("starts pending with nothing received", () => {
    const state = newPayment();
    expect(state).toMatchObject({
      id: PAYMENT_ID,
      status: "pending",
      wallet: null,
      amountReceived: 0n,
      overpaidAmount: 0n,
      expiryReached: false,
      transfers: [],
      refunds: [],
      credit: null,
      simulated: false,
    });
  });

  it("refuses a non-positive amount or a fee outside [0, amount]", () => {
    const base = { id: PAYMENT_ID, mode: "live", currency: "USD", expiresAt: EXPIRES_AT } as const;
    expect(() => initialPaymentState({ ...base, amount: 0n, fee: 0n })).toThrow(MoneyError);
    expect(() => initialPaymentState({ ...base, amount: 100n, fee: 101n })).toThrow(MoneyError);
    expect(() => initialPaymentState({ ...base, amount: 100n, fee: -1n })).toThrow(MoneyError);
  });
});

describe("docs/payment-lifecycle.md statuses, row by row", () => {
  it("pending: created, waiting for the customer's transfer", () => {
    const { state, effects } = run(newPayment(), walletUsdc());
    expect(state.status).toBe("pending");
    expect(state.wallet).toEqual({ chain: "solana", coin: "USDC", address: ADDRESS, amountDue: USDC_DUE });
    expect(effects).toEqual([]);
  });

  it("confirming: a transfer to the deposit address is seen but not final yet", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), seen("tx1", USDC_DUE));
    expect(state.status).toBe("confirming");
    expect(state.amountReceived).toBe(0n);
    expect(effects).toEqual([{ type: "event", event: "payment.confirming" }]);
  });

  it("confirmed: transfers at finality cover the amount due; the deposit is swept", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), seen("tx1", USDC_DUE), final("tx1", USDC_DUE));
    expect(state.status).toBe("confirmed");
    expect(state.amountReceived).toBe(USDC_DUE);
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.confirmed"]);
    expect(sweepsOf(effects)).toEqual([
      { type: "sweep", chain: "solana", coin: "USDC", address: ADDRESS, amount: USDC_DUE },
    ]);
    expect(refundsOf(effects)).toEqual([]);
  });

  it("completed: swept to the vault, merchant credited net of the fee", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), final("tx1", USDC_DUE), {
      type: "sweep_done",
      txid: "sweep-sig",
    });
    expect(state.status).toBe("completed");
    expect(state.sweepTxid).toBe("sweep-sig");
    // The 0.13 USD fee is 130_000 USDC base units.
    const credit = {
      chain: "solana",
      coin: "USDC",
      gross: USDC_DUE,
      fee: 130_000n,
      net: 12_370_000n,
      usdValue: 12_500_000n,
      usdRate: null,
    } as const;
    expect(state.credit).toEqual(credit);
    expect(creditsOf(effects)).toEqual([{ type: "credit", ...credit }]);
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.confirmed", "payment.completed"]);
  });

  it("underpaid: expired with less than due; the received funds are being returned", () => {
    const { state, effects } = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 4_000_000n, "USDC", CUSTOMER),
      final("tx2", 1_000_000n, "USDC", OTHER),
      EXPIRE,
    );
    expect(state.status).toBe("underpaid");
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.underpaid"]);
    expect(refundsOf(effects)).toEqual([
      {
        type: "refund",
        refundId: `${PAYMENT_ID}:tx1:underpayment`,
        kind: "underpayment",
        transferId: "tx1",
        chain: "solana",
        coin: "USDC",
        amount: 4_000_000n,
        to: CUSTOMER,
        from: "deposit",
        simulated: false,
      },
      {
        type: "refund",
        refundId: `${PAYMENT_ID}:tx2:underpayment`,
        kind: "underpayment",
        transferId: "tx2",
        chain: "solana",
        coin: "USDC",
        amount: 1_000_000n,
        to: OTHER,
        from: "deposit",
        simulated: false,
      },
    ]);
  });

  it("refunded: the underpayment was returned on-chain, once every refund is sent", () => {
    const underpaid = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 4_000_000n),
      final("tx2", 1_000_000n),
      EXPIRE,
    );
    const half = run(underpaid.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "r1",
    });
    expect(half.state.status).toBe("underpaid");
    expect(half.effects).toEqual([]);
    const done = run(half.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx2:underpayment`,
      txid: "r2",
    });
    expect(done.state.status).toBe("refunded");
    expect(done.effects).toEqual([{ type: "event", event: "payment.refunded" }]);
    expect(done.state.refunds.map((r) => r.txid)).toEqual(["r1", "r2"]);
  });

  it("refunded: a payment that arrived after expiry was returned on-chain", () => {
    const late = run(newPayment(), walletUsdc(), EXPIRE, final("tx1", USDC_DUE));
    expect(late.state.status).toBe("expired");
    expect(late.state.amountReceived).toBe(0n);
    expect(refundsOf(late.effects)).toMatchObject([
      { kind: "late", amount: USDC_DUE, to: CUSTOMER, from: "deposit" },
    ]);
    const done = run(late.state, { type: "refund_sent", refundId: `${PAYMENT_ID}:tx1:late`, txid: "r1" });
    expect(done.state.status).toBe("refunded");
    expect(eventsOf(done.effects)).toEqual(["payment.refunded"]);
  });

  it("expired: nothing arrived before expires_at", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), EXPIRE);
    expect(state.status).toBe("expired");
    expect(effects).toEqual([{ type: "event", event: "payment.expired" }]);
    // A payment whose customer never picked a coin expires the same way.
    expect(run(newPayment(), EXPIRE).state.status).toBe("expired");
  });

  it("failed: settlement could not be completed; never silent", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), final("tx1", USDC_DUE), {
      type: "fail",
      reason: "sweep rejected by signer",
    });
    expect(state.status).toBe("failed");
    expect(state.failureReason).toBe("sweep rejected by signer");
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.confirmed", "payment.failed"]);
  });
});

describe("transfers", () => {
  it("add up across transfers until the amount due is covered", () => {
    const { state, effects } = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 5_000_000n),
      final("tx2", 5_000_000n),
      final("tx3", 2_500_000n),
    );
    expect(state.status).toBe("confirmed");
    expect(state.amountReceived).toBe(USDC_DUE);
    expect(state.overpaidAmount).toBe(0n);
    expect(eventsOf(effects)).toEqual(["payment.confirming", "payment.confirmed"]);
    expect(sweepsOf(effects)[0]?.amount).toBe(USDC_DUE);
  });

  it("ignore a repeated transfer id: a replay is a no-op", () => {
    const once = run(newPayment(), walletUsdc(), final("tx1", 5_000_000n));
    const twice = decide(once.state, final("tx1", 5_000_000n));
    expect(twice.state).toBe(once.state);
    expect(twice.effects).toEqual([]);
    expect(twice.rejected?.code).toBe("duplicate");
    // Even with another amount: the first final report of a transfer wins.
    expect(decide(once.state, final("tx1", 9_000_000n)).rejected?.code).toBe("duplicate");
  });

  it("ignore a transfer in another coin than the one chosen", () => {
    const { state, decisions } = run(
      newPayment(),
      walletUsdc(),
      seen("tx1", USDC_DUE, "USDT"),
      final("tx1", USDC_DUE, "USDT"),
    );
    expect(state.status).toBe("pending");
    expect(state.transfers).toEqual([]);
    expect(decisions.slice(1).map((d) => d.rejected?.code)).toEqual(["coin_mismatch", "coin_mismatch"]);
  });

  it("refuse transfers before a deposit wallet exists, and non-positive amounts", () => {
    expect(decide(newPayment(), final("tx1", USDC_DUE)).rejected?.code).toBe("no_wallet");
    expect(decide(newPayment(), seen("tx1", USDC_DUE)).rejected?.code).toBe("no_wallet");
    const withWallet = run(newPayment(), walletUsdc()).state;
    expect(decide(withWallet, final("tx1", 0n)).rejected?.code).toBe("invalid_message");
    expect(decide(withWallet, seen("tx1", -1n)).rejected?.code).toBe("invalid_message");
  });

  it("a final partial transfer moves pending to confirming", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), final("tx1", 1_000_000n));
    expect(state.status).toBe("confirming");
    expect(state.amountReceived).toBe(1_000_000n);
    expect(eventsOf(effects)).toEqual(["payment.confirming"]);
  });

  it("count the final amount, not the amount first seen", () => {
    const { state } = run(newPayment(), walletUsdc(), seen("tx1", USDC_DUE), final("tx1", 1_000_000n));
    expect(state.status).toBe("confirming");
    expect(state.amountReceived).toBe(1_000_000n);
  });

  it("a dropped transfer no longer holds the payment", () => {
    const { state, effects } = run(newPayment(), walletUsdc(), seen("tx1", USDC_DUE), {
      type: "transfer_dropped",
      transferId: "tx1",
    });
    expect(state.status).toBe("confirming");
    expect(state.transfers[0]?.status).toBe("dropped");
    expect(eventsOf(effects)).toEqual(["payment.confirming"]);
    expect(run(state, EXPIRE).state.status).toBe("expired");
  });
});

describe("overpayment", () => {
  it("completes and returns the surplus to the sender of the transfer that crossed the line", () => {
    const { state, effects } = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 10_000_000n, "USDC", CUSTOMER),
      final("tx2", 5_000_000n, "USDC", OTHER),
    );
    expect(state.status).toBe("confirmed");
    expect(state.amountReceived).toBe(15_000_000n);
    expect(state.overpaidAmount).toBe(2_500_000n);
    // Everything received is swept, so the surplus is paid back from the vault.
    expect(sweepsOf(effects)).toMatchObject([{ amount: 15_000_000n }]);
    expect(refundsOf(effects)).toEqual([
      {
        type: "refund",
        refundId: `${PAYMENT_ID}:tx2:overpayment`,
        kind: "overpayment",
        transferId: "tx2",
        chain: "solana",
        coin: "USDC",
        amount: 2_500_000n,
        to: OTHER,
        from: "vault",
        simulated: false,
      },
    ]);
    const completed = run(state, { type: "sweep_done", txid: "s1" });
    expect(completed.state.status).toBe("completed");
    expect(creditsOf(completed.effects)).toMatchObject([{ gross: USDC_DUE }]);
    // Sending the surplus refund does not change a completed payment: no event, only the
    // customer's notice of that refund.
    const refunded = run(completed.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx2:overpayment`,
      txid: "r1",
    });
    expect(refunded.state.status).toBe("completed");
    expect(refunded.effects).toEqual([{ type: "refund_notice", refundId: `${PAYMENT_ID}:tx2:overpayment` }]);
    expect(refunded.state.refunds[0]?.txid).toBe("r1");
    expect(hasOwnNotice(refunded.state.refunds[0]!)).toBe(true);
    // Sent again (a redelivery): rejected, so no second notice.
    const again = decide(refunded.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx2:overpayment`,
      txid: "r1",
    });
    expect(again.rejected?.code).toBe("duplicate");
    expect(again.effects).toEqual([]);
  });

  it("a surplus sent before the sweep lands has its notice all the same", () => {
    const confirmed = run(newPayment(), walletUsdc(), final("tx1", 15_000_000n));
    const sent = run(confirmed.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:overpayment`,
      txid: "r1",
    });
    expect(sent.state.status).toBe("confirmed");
    expect(sent.effects).toEqual([{ type: "refund_notice", refundId: `${PAYMENT_ID}:tx1:overpayment` }]);
  });
});

describe("expiry", () => {
  it("is refused before expiresAt", () => {
    const decision = decide(newPayment(), { type: "expire", now: EXPIRES_AT - 1 });
    expect(decision.rejected?.code).toBe("not_expired");
    expect(decision.state.status).toBe("pending");
  });

  it("waits for transfers seen in time, then confirms if they cover the due", () => {
    const waiting = run(newPayment(), walletUsdc(), seen("tx1", USDC_DUE), EXPIRE);
    expect(waiting.state.status).toBe("confirming");
    expect(waiting.state.expiryReached).toBe(true);
    expect(waiting.decisions[2]?.effects).toEqual([]);
    const done = run(waiting.state, final("tx1", USDC_DUE));
    expect(done.state.status).toBe("confirmed");
    expect(eventsOf(done.effects)).toEqual(["payment.confirmed"]);
  });

  it("waits for every outstanding transfer, then resolves as underpaid if they fall short", () => {
    const waiting = run(
      newPayment(),
      walletUsdc(),
      seen("tx1", 3_000_000n),
      seen("tx2", 3_000_000n),
      EXPIRE,
      final("tx1", 3_000_000n),
    );
    expect(waiting.state.status).toBe("confirming");
    const done = run(waiting.state, final("tx2", 3_000_000n));
    expect(done.state.status).toBe("underpaid");
    expect(refundsOf(done.effects).map((r) => [r.transferId, r.amount])).toEqual([
      ["tx1", 3_000_000n],
      ["tx2", 3_000_000n],
    ]);
  });

  it("resolves when the last outstanding transfer is dropped", () => {
    const waiting = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 1_000_000n),
      seen("tx2", 3_000_000n),
      EXPIRE,
    );
    expect(waiting.state.status).toBe("confirming");
    const done = run(waiting.state, { type: "transfer_dropped", transferId: "tx2" });
    expect(done.state.status).toBe("underpaid");
    expect(refundsOf(done.effects)).toMatchObject([
      { transferId: "tx1", amount: 1_000_000n, kind: "underpayment" },
    ]);
  });

  it("does not wait for a transfer first seen after expiry; it is returned when final", () => {
    const waiting = run(newPayment(), walletUsdc(), seen("tx1", 1_000_000n), EXPIRE);
    const lateSeen = decide(waiting.state, seen("tx2", USDC_DUE));
    expect(lateSeen.rejected?.code).toBe("after_expiry");
    const lateFinal = run(waiting.state, final("tx2", USDC_DUE));
    expect(lateFinal.state.status).toBe("confirming");
    expect(lateFinal.state.amountReceived).toBe(0n);
    expect(refundsOf(lateFinal.effects)).toMatchObject([
      { transferId: "tx2", kind: "late", amount: USDC_DUE },
    ]);
    const done = run(lateFinal.state, final("tx1", 1_000_000n));
    expect(done.state.status).toBe("underpaid");
    // Returned: tx2 in full as late, tx1 as the underpayment.
    expect(done.state.refunds.map((r) => [r.transferId, r.kind])).toEqual([
      ["tx2", "late"],
      ["tx1", "underpayment"],
    ]);
  });
});

describe("late transfers", () => {
  const lateCases: Array<[string, PaymentMessage[], PaymentStatus]> = [
    ["confirmed (already covered)", [walletUsdc(), final("tx1", USDC_DUE)], "confirmed"],
    ["completed", [walletUsdc(), final("tx1", USDC_DUE), { type: "sweep_done", txid: "s" }], "completed"],
    ["expired", [walletUsdc(), EXPIRE], "expired"],
    ["underpaid", [walletUsdc(), final("tx1", 1n), EXPIRE], "underpaid"],
    [
      "refunded",
      [
        walletUsdc(),
        final("tx1", 1n),
        EXPIRE,
        { type: "refund_sent", refundId: `${PAYMENT_ID}:tx1:underpayment`, txid: "r" },
      ],
      "refunded",
    ],
    ["failed", [walletUsdc(), final("tx1", USDC_DUE), { type: "fail", reason: "x" }], "failed"],
  ];

  it.each(lateCases)(
    "to a %s payment are returned in full, with no credit and no status change",
    (_l, messages, status) => {
      const before = run(newPayment(), ...messages).state;
      expect(before.status).toBe(status);
      const after = decide(before, final("late1", 7_000_000n, "USDC", OTHER));
      expect(after.rejected).toBeUndefined();
      expect(after.state.status).toBe(status);
      expect(after.state.amountReceived).toBe(before.amountReceived);
      expect(after.effects).toEqual([
        {
          type: "refund",
          refundId: `${PAYMENT_ID}:late1:late`,
          kind: "late",
          transferId: "late1",
          chain: "solana",
          coin: "USDC",
          amount: 7_000_000n,
          to: OTHER,
          from: "deposit",
          simulated: false,
        },
      ]);
      expect(after.state.transfers.at(-1)).toMatchObject({ transferId: "late1", status: "returned" });
    },
  );

  it("make a refunded payment wait for the new refund without leaving refunded", () => {
    const refunded = run(
      newPayment(),
      walletUsdc(),
      final("tx1", 1n),
      EXPIRE,
      { type: "refund_sent", refundId: `${PAYMENT_ID}:tx1:underpayment`, txid: "r" },
      final("late1", 5n),
    );
    expect(refunded.state.status).toBe("refunded");
    expect(allRefundsSent(refunded.state)).toBe(false);
    const sent = run(refunded.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:late1:late`,
      txid: "r2",
    });
    expect(sent.state.status).toBe("refunded");
    // payment.refunded went out before this transfer came: its own notice is the customer's word of it.
    expect(sent.effects).toEqual([{ type: "refund_notice", refundId: `${PAYMENT_ID}:late1:late` }]);
  });

  it("to an underpaid payment hold refunded back until that refund is sent too", () => {
    const underpaid = run(newPayment(), walletUsdc(), final("tx1", 1n), EXPIRE, final("late1", 5n));
    const one = run(underpaid.state, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "a",
    });
    expect(one.state.status).toBe("underpaid");
    const two = run(one.state, { type: "refund_sent", refundId: `${PAYMENT_ID}:late1:late`, txid: "b" });
    expect(two.state.status).toBe("refunded");
  });
});

describe("wallet choice", () => {
  it("can switch while nothing has been received", () => {
    const switched = run(
      newPayment(),
      walletUsdc(),
      walletUsdc({ chain: "sui", coin: "USDT", address: "0xsui", amountDue: USDC_DUE }),
    );
    expect(switched.state.wallet).toEqual({
      chain: "sui",
      coin: "USDT",
      address: "0xsui",
      amountDue: USDC_DUE,
    });
    expect(switched.decisions.map((d) => d.rejected)).toEqual([undefined, undefined]);
  });

  it("cannot switch once a transfer is seen", () => {
    const { state } = run(newPayment(), walletUsdc(), seen("tx1", 1n));
    expect(decide(state, walletUsdc({ coin: "USDT" })).rejected?.code).toBe("not_applicable");
  });

  it("the same choice again is a no-op", () => {
    const { state } = run(newPayment(), walletUsdc());
    const again = decide(state, walletUsdc());
    expect(again.state).toBe(state);
    expect(again.rejected?.code).toBe("duplicate");
  });

  it.each<[string, PaymentMessage, RejectionCode]>([
    ["SOL for USD without a quote", walletUsdc({ coin: "SOL", amountDue: 1n }), "quote_invalid"],
    ["SOL cannot pay USDC", walletUsdc({ coin: "SOL", amountDue: 1n }), "wallet_invalid"],
    ["sui does not carry SOL", walletUsdc({ chain: "sui", coin: "SOL" }), "wallet_invalid"],
    ["empty address", walletUsdc({ address: "" }), "wallet_invalid"],
    ["wrong amount due", walletUsdc({ amountDue: USDC_DUE + 1n }), "amount_due_mismatch"],
  ])("refuses %s", (label, message, code) => {
    const decision = decide(newPayment({ currency: label.endsWith("USDC") ? "USDC" : "USD" }), message);
    expect(decision.rejected?.code).toBe(code);
    expect(decision.state.wallet).toBeNull();
  });

  it("accepts SOL for a SOL payment with the amount in lamports", () => {
    const sol = newPayment({ currency: "SOL", amount: 1_500_000_000n, fee: 15_000_000n });
    const { state } = run(sol, {
      type: "wallet_assigned",
      chain: "solana",
      coin: "SOL",
      address: ADDRESS,
      amountDue: 1_500_000_000n,
    });
    expect(state.wallet?.coin).toBe("SOL");
    const done = run(state, final("tx1", 1_500_000_000n, "SOL"), { type: "sweep_done", txid: "s" });
    expect(creditsOf(done.effects)).toEqual([
      {
        type: "credit",
        chain: "solana",
        coin: "SOL",
        gross: 1_500_000_000n,
        fee: 15_000_000n,
        net: 1_485_000_000n,
        // No price was known at creation or completion in this test.
        usdValue: null,
        usdRate: null,
      },
    ]);
  });
});

describe("refund_sent", () => {
  it("refuses an unknown refund and a second txid for the same refund", () => {
    const underpaid = run(newPayment(), walletUsdc(), final("tx1", 1n), EXPIRE).state;
    expect(decide(underpaid, { type: "refund_sent", refundId: "nope", txid: "t" }).rejected?.code).toBe(
      "unknown_refund",
    );
    const sent = run(underpaid, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "t",
    }).state;
    const again = decide(sent, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "other",
    });
    expect(again.rejected?.code).toBe("duplicate");
    expect(again.state.refunds[0]?.txid).toBe("t");
  });

  it("refuses an empty txid", () => {
    const underpaid = run(newPayment(), walletUsdc(), final("tx1", 1n), EXPIRE).state;
    const decision = decide(underpaid, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "",
    });
    expect(decision.rejected?.code).toBe("invalid_message");
  });

  it("is recorded on a failed payment without changing its status", () => {
    const failed = run(newPayment(), walletUsdc(), final("tx1", 1n), EXPIRE, {
      type: "fail",
      reason: "rpc down",
    }).state;
    expect(failed.status).toBe("failed");
    const sent = decide(failed, {
      type: "refund_sent",
      refundId: `${PAYMENT_ID}:tx1:underpayment`,
      txid: "t",
    });
    expect(sent.state.status).toBe("failed");
    expect(sent.state.refunds[0]?.txid).toBe("t");
  });
});

describe("simulate (test mode)", () => {
  it("paid: pending → completed; payment.confirmed skipped, payment.completed and a credit", () => {
    const { state, effects } = run(newPayment(), { type: "simulate", outcome: "paid" });
    expect(state.status).toBe("completed");
    expect(state.simulated).toBe(true);
    expect(state.amountReceived).toBe(USDC_DUE);
    // No coin picked yet: the default, USDC on Solana, with no deposit address.
    expect(state.wallet).toEqual({ chain: "solana", coin: "USDC", address: null, amountDue: USDC_DUE });
    expect(effects).toEqual([
      { type: "event", event: "payment.completed" },
      {
        type: "credit",
        chain: "solana",
        coin: "USDC",
        gross: USDC_DUE,
        fee: 130_000n,
        net: 12_370_000n,
        usdValue: 12_500_000n,
        usdRate: null,
      },
    ]);
  });

  it("paid: settles in the coin the customer already chose", () => {
    const { state, effects } = run(
      newPayment(),
      walletUsdc({ chain: "sui", coin: "USDT", address: "0xsui" }),
      { type: "simulate", outcome: "paid" },
    );
    expect(state.wallet?.address).toBe("0xsui");
    expect(creditsOf(effects)).toMatchObject([{ chain: "sui", coin: "USDT" }]);
  });

  it("underpaid: underpaid then refunded with a simulated refund", () => {
    const { state, effects } = run(newPayment(), { type: "simulate", outcome: "underpaid" });
    expect(state.status).toBe("refunded");
    expect(state.amountReceived).toBe(USDC_DUE / 2n);
    expect(eventsOf(effects)).toEqual(["payment.underpaid", "payment.refunded"]);
    expect(refundsOf(effects)).toEqual([
      {
        type: "refund",
        refundId: `${PAYMENT_ID}:simulated:underpayment`,
        kind: "underpayment",
        transferId: null,
        chain: "solana",
        coin: "USDC",
        amount: USDC_DUE / 2n,
        to: null,
        from: "deposit",
        simulated: true,
      },
    ]);
    expect(creditsOf(effects)).toEqual([]);
    expect(allRefundsSent(state)).toBe(true);
  });

  it("overpaid: completed with overpaidAmount and a simulated refund of the surplus", () => {
    const { state, effects } = run(newPayment(), { type: "simulate", outcome: "overpaid" });
    expect(state.status).toBe("completed");
    expect(state.overpaidAmount).toBe(USDC_DUE / 10n);
    expect(state.amountReceived).toBe(USDC_DUE + USDC_DUE / 10n);
    expect(eventsOf(effects)).toEqual(["payment.completed"]);
    expect(creditsOf(effects)).toMatchObject([{ gross: USDC_DUE, net: 12_370_000n }]);
    expect(refundsOf(effects)).toMatchObject([
      { kind: "overpayment", amount: USDC_DUE / 10n, simulated: true, from: "vault" },
    ]);
    // A simulated refund counts as sent at once: its notice is due with it.
    expect(effects.filter((e) => e.type === "refund_notice")).toEqual([
      { type: "refund_notice", refundId: `${PAYMENT_ID}:simulated:overpayment` },
    ]);
  });

  it("expired: pending → expired", () => {
    const { state, effects } = run(newPayment(), { type: "simulate", outcome: "expired" });
    expect(state.status).toBe("expired");
    expect(effects).toEqual([{ type: "event", event: "payment.expired" }]);
  });

  it.each(["paid", "underpaid", "overpaid", "expired"] as const)(
    "%s is refused for a live payment",
    (outcome) => {
      const live = newPayment({ mode: "live" });
      const decision = decide(live, { type: "simulate", outcome });
      expect(decision.rejected?.code).toBe("live_mode");
      expect(decision.state).toBe(live);
    },
  );

  it("cannot underpay a one-unit payment", () => {
    const tiny = newPayment({ currency: "SOL", amount: 1n, fee: 1n });
    const refused = decide(tiny, { type: "simulate", outcome: "underpaid" });
    expect(refused.rejected?.code).toBe("cannot_simulate");
    expect(refused.state).toBe(tiny);
    // Overpaying it still has a one-unit surplus.
    expect(run(tiny, { type: "simulate", outcome: "overpaid" }).state.overpaidAmount).toBe(1n);
  });

  it("a simulated payment without an address refuses real transfers", () => {
    const { state } = run(newPayment(), { type: "simulate", outcome: "paid" });
    expect(decide(state, final("tx1", USDC_DUE)).rejected?.code).toBe("no_wallet");
  });
});

// Every message in every status. A status's fixture is a real path to it; each message is
// built against that fixture so that it is the meaningful one (a refund that exists, a
// transfer that is outstanding) where the status has one.

function fixture(status: PaymentStatus): PaymentState {
  const p = newPayment();
  switch (status) {
    case "pending":
      return run(p, walletUsdc()).state;
    case "confirming":
      return run(p, walletUsdc(), seen("tx1", 5_000_000n)).state;
    case "confirmed":
      return run(p, walletUsdc(), final("tx1", USDC_DUE)).state;
    case "completed":
      return run(p, walletUsdc(), final("tx1", USDC_DUE), { type: "sweep_done", txid: "s" }).state;
    case "underpaid":
      return run(p, walletUsdc(), final("tx1", 5_000_000n), EXPIRE).state;
    case "refunded":
      return run(p, walletUsdc(), final("tx1", 5_000_000n), EXPIRE, {
        type: "refund_sent",
        refundId: `${PAYMENT_ID}:tx1:underpayment`,
        txid: "r",
      }).state;
    case "expired":
      return run(p, walletUsdc(), EXPIRE).state;
    case "failed":
      return run(p, walletUsdc(), final("tx1", USDC_DUE), { type: "fail", reason: "x" }).state;
    default:
      return assertNever(status, "status");
  }
}

function messageFor(type: PaymentMessageType, state: PaymentState): PaymentMessage {
  switch (type) {
    case "wallet_assigned":
      return walletUsdc({ chain: "sui", address: "0xsui" });
    case "transfer_seen":
      return seen("tx9", USDC_DUE);
    case "transfer_final":
      return final("tx9", USDC_DUE);
    case "transfer_dropped":
      return { type: "transfer_dropped", transferId: state.transfers[0]?.transferId ?? "tx-unknown" };
    case "expire":
      return EXPIRE;
    case "quote_expire":
      return { type: "quote_expire", expiresAt: EXPIRES_AT, now: EXPIRES_AT };
    case "sweep_done":
      return { type: "sweep_done", txid: "sweep" };
    case "refund_sent":
      return { type: "refund_sent", refundId: state.refunds[0]?.refundId ?? "unknown", txid: "refund" };
    case "fail":
      return { type: "fail", reason: "operator" };
    case "simulate":
      return { type: "simulate", outcome: "paid" };
    default:
      return assertNever(type, "message type");
  }
}

/** Accepted: the status after and the events emitted. Rejected: the code. */
type Outcome =
  | { to: PaymentStatus; events: PaymentEventType[]; refunds?: number }
  | { rejected: RejectionCode };

const na = { rejected: "not_applicable" } as const;
const lateRefund = (status: PaymentStatus): Outcome => ({ to: status, events: [], refunds: 1 });

const TABLE: Record<PaymentStatus, Record<PaymentMessageType, Outcome>> = {
  pending: {
    wallet_assigned: { to: "pending", events: [] },
    transfer_seen: { to: "confirming", events: ["payment.confirming"] },
    // Straight to final (its `seen` not handled yet): still through confirming.
    transfer_final: { to: "confirmed", events: ["payment.confirming", "payment.confirmed"] },
    transfer_dropped: { rejected: "unknown_transfer" },
    expire: { to: "expired", events: ["payment.expired"] },
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "unknown_refund" },
    fail: na,
    simulate: { to: "completed", events: ["payment.completed"] },
  },
  confirming: {
    wallet_assigned: na,
    transfer_seen: { to: "confirming", events: [] },
    transfer_final: { to: "confirmed", events: ["payment.confirmed"] },
    transfer_dropped: { to: "confirming", events: [] },
    expire: { to: "confirming", events: [] },
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "unknown_refund" },
    fail: { to: "failed", events: ["payment.failed"] },
    simulate: na,
  },
  confirmed: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("confirmed"),
    transfer_dropped: na,
    expire: na,
    quote_expire: na,
    sweep_done: { to: "completed", events: ["payment.completed"] },
    refund_sent: { rejected: "unknown_refund" },
    fail: { to: "failed", events: ["payment.failed"] },
    simulate: na,
  },
  completed: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("completed"),
    transfer_dropped: na,
    expire: na,
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "unknown_refund" },
    fail: na,
    simulate: na,
  },
  underpaid: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("underpaid"),
    transfer_dropped: na,
    expire: na,
    quote_expire: na,
    sweep_done: na,
    refund_sent: { to: "refunded", events: ["payment.refunded"] },
    fail: { to: "failed", events: ["payment.failed"] },
    simulate: na,
  },
  refunded: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("refunded"),
    transfer_dropped: na,
    expire: na,
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "duplicate" },
    fail: na,
    simulate: na,
  },
  expired: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("expired"),
    transfer_dropped: { rejected: "unknown_transfer" },
    expire: na,
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "unknown_refund" },
    fail: na,
    simulate: na,
  },
  failed: {
    wallet_assigned: na,
    transfer_seen: na,
    transfer_final: lateRefund("failed"),
    transfer_dropped: na,
    expire: na,
    quote_expire: na,
    sweep_done: na,
    refund_sent: { rejected: "unknown_refund" },
    fail: na,
    simulate: na,
  },
};

describe("every message in every status", () => {
  const cells = PAYMENT_STATUSES.flatMap((status) =>
    PAYMENT_MESSAGE_TYPES.map((type) => [status, type, TABLE[status][type]] as const),
  );

  it("covers all statuses and message types", () => {
    expect(cells).toHaveLength(8 * 10);
    for (const status of PAYMENT_STATUSES) expect(fixture(status).status).toBe(status);
  });

  it.each(cells)("%s + %s", (status, type, outcome) => {
    const before = fixture(status);
    const snapshot = structuredClone(before);
    const decision = decide(before, messageFor(type, before));
    // decide never mutates its input.
    expect(before).toEqual(snapshot);
    if ("rejected" in outcome) {
      expect(decision.rejected?.code).toBe(outcome.rejected);
      expect(decision.state).toBe(before);
      expect(decision.effects).toEqual([]);
      expect(decision.rejected?.message).toBeTruthy();
    } else {
      expect(decision.rejected).toBeUndefined();
      expect(decision.state.status).toBe(outcome.to);
      expect(eventsOf(decision.effects)).toEqual(outcome.events);
      if (outcome.refunds !== undefined) expect(refundsOf(decision.effects)).toHaveLength(outcome.refunds);
    }
  });
});
