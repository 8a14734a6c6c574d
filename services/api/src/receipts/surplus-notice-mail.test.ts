import { randomUUID } from "node:crypto";
import { decide, initialPaymentState, type PaymentMessage, type PaymentState } from "@gateway/domain";
import { describe, expect, it } from "vitest";
import { dateText } from "./mail-lines.js";
import { surplusNoticeMail } from "./surplus-notice-mail.js";

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
    const mail = surplusNoticeMail({
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
    const mail = surplusNoticeMail({
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
