import { randomUUID } from "node:crypto";
import { decide, initialPaymentState, type PaymentMessage, type PaymentState } from "@gateway/domain";
import { describe, expect, it } from "vitest";
import { dateText } from "./mail-lines.js";
import { refundNoticeMail } from "./refund-notice-mail.js";

const SIGNATURE = "5VERYrealSignature111111111111111111111111111111111111111111111111111111111111111111";

function apply(state: PaymentState, message: PaymentMessage): PaymentState {
  const decision = decide(state, message);
  expect(decision.rejected).toBeUndefined();
  return decision.state;
}

/** A live USDC payment of 12.50 paid with 15.00, swept, its surplus sent back in `SIGNATURE`. */
function overpaidLive(): PaymentState {
  let state = initialPaymentState({
    id: randomUUID(),
    mode: "live",
    currency: "USD",
    amount: 1250n,
    fee: 10n,
    expiresAt: Date.now() + 600_000,
  });
  const messages: PaymentMessage[] = [
    { type: "wallet_assigned", chain: "solana", coin: "USDC", address: "deposit-1", amountDue: 12_500_000n },
    {
      type: "transfer_final",
      transferId: "solana:sig1:0",
      coin: "USDC",
      amount: 15_000_000n,
      sender: "payer-1",
    },
    { type: "sweep_done", txid: "sweep-1" },
  ];
  for (const message of messages) state = apply(state, message);
  return apply(state, { type: "refund_sent", refundId: state.refunds[0]!.refundId, txid: SIGNATURE });
}

describe("the notice of a returned surplus", () => {
  const state = overpaidLive();
  const refund = state.refunds[0]!;
  const at = new Date("2026-11-29T10:15:00Z");

  it("names the surplus, its transaction with the explorer's link on mainnet, and the date", () => {
    const mail = refundNoticeMail({
      to: "payer@example.test",
      merchantName: "Shop <&> Co",
      state,
      refund,
      publicChains: new Set(["solana"]),
      at,
    });
    expect(mail.subject).toBe("Your overpayment of 2.50 USDC to Shop <&> Co was returned");
    expect(mail.text.split("\n")).toEqual([
      "You sent Shop <&> Co more than was due. Your overpayment of 2.50 USDC was returned to you; your payment of 12.50 USDC stands.",
      "",
      "Merchant: Shop <&> Co",
      "Due: 12.50 USDC",
      "Received: 15.00 USDC on solana",
      "Returned: 2.50 USDC to payer-1",
      `Transaction: ${SIGNATURE} (https://solscan.io/tx/${SIGNATURE})`,
      `Date: ${dateText(at)}`,
      `Payment: ${state.id}`,
    ]);
    expect(mail.html).toContain(`<a href="https://solscan.io/tx/${SIGNATURE}">${SIGNATURE}</a>`);
    expect(mail.html).toContain("Shop &lt;&amp;&gt; Co");
    expect(mail.html).not.toContain("Shop <&> Co");
  });

  it("names the transaction without a link off mainnet", () => {
    const mail = refundNoticeMail({
      to: "p@example.test",
      merchantName: "Shop",
      state,
      refund,
      publicChains: new Set(),
      at,
    });
    expect(mail.text).toContain(`Transaction: ${SIGNATURE}\n`);
    expect(mail.html).not.toContain("<a ");
  });
});

describe("the notice of a transfer returned because it came late", () => {
  /** A live payment paid exactly and completed, then a second transfer, returned in `SIGNATURE`. */
  function lateOnCompleted(): { state: PaymentState; noticed: boolean } {
    let state = initialPaymentState({
      id: randomUUID(),
      mode: "live",
      currency: "USD",
      amount: 1250n,
      fee: 10n,
      expiresAt: Date.now() + 600_000,
    });
    const messages: PaymentMessage[] = [
      {
        type: "wallet_assigned",
        chain: "solana",
        coin: "USDC",
        address: "deposit-1",
        amountDue: 12_500_000n,
      },
      {
        type: "transfer_final",
        transferId: "solana:sig1:0",
        coin: "USDC",
        amount: 12_500_000n,
        sender: "payer-1",
      },
      { type: "sweep_done", txid: "sweep-1" },
      {
        type: "transfer_final",
        transferId: "solana:sig2:0",
        coin: "USDC",
        amount: 3_000_000n,
        sender: "payer-1",
      },
    ];
    for (const message of messages) state = apply(state, message);
    const sent = decide(state, {
      type: "refund_sent",
      refundId: state.refunds[0]!.refundId,
      txid: SIGNATURE,
    });
    return { state: sent.state, noticed: sent.effects.some((e) => e.type === "refund_notice") };
  }

  it("is due when the late transfer's refund is sent, and says it came after the payment closed", () => {
    const { state, noticed } = lateOnCompleted();
    expect(state.status).toBe("completed");
    expect(noticed).toBe(true);
    const at = new Date("2026-11-29T10:15:00Z");
    const mail = refundNoticeMail({
      to: "payer@example.test",
      merchantName: "Shop",
      state,
      refund: state.refunds[0]!,
      publicChains: new Set(["solana"]),
      at,
    });
    expect(mail.subject).toBe("Your transfer of 3.00 USDC to Shop was returned");
    expect(mail.text.split("\n")).toEqual([
      "Your transfer of 3.00 USDC reached Shop after the payment was closed, so it was returned to you.",
      "",
      "Merchant: Shop",
      "Returned: 3.00 USDC to payer-1",
      `Transaction: ${SIGNATURE} (https://solscan.io/tx/${SIGNATURE})`,
      `Date: ${dateText(at)}`,
      `Payment: ${state.id}`,
    ]);
  });
});
