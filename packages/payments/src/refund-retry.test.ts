import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES } from "@gateway/domain";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertPayment } from "./payment-row.js";
import { republishRefund, unsentRefunds } from "./refund-retry.js";

let db: TestDatabase;
const merchantId = newId("mer");

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'r@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await db.drop();
});

/** A live payment owing two refunds: one sent, one whose transaction failed (no txid yet). */
async function paymentWithRefunds() {
  const id = randomUUID();
  const state = initialPaymentState({
    id,
    mode: "live",
    currency: "USD",
    amount: 1250n,
    fee: computeFee(1250n, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  const refund = (transferId: string, txid: string | null) => ({
    refundId: `${id}:${transferId}:underpayment`,
    kind: "underpayment" as const,
    transferId,
    chain: "solana" as const,
    coin: "USDC" as const,
    amount: 500_000n,
    to: "Sender1111111111111111111111111111111111111",
    from: "deposit" as const,
    simulated: false,
    attestation: { keyId: "watcher-1", signature: "c2ln" },
    transferAmount: 500_000n,
    txid,
  });
  state.refunds = [refund("sent:0", "TxSent"), refund("failed:0", null)];
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  return { id, failed: state.refunds[1]! };
}

it("lists a payment's unsent refunds and sends the command of one again under a new id", async () => {
  const { id, failed } = await paymentWithRefunds();
  expect(await unsentRefunds(db.sql, id)).toEqual([
    { refundId: failed.refundId, intentId: `refund:${failed.refundId}`, chain: "solana", mode: "live" },
  ]);
  expect(await unsentRefunds(db.sql, randomUUID())).toBeUndefined();

  const subject = "test.cmd.settle.refund";
  expect(
    await republishRefund(db.sql, { paymentId: id, refundId: failed.refundId, attempt: 2, subject }),
  ).toBe(true);
  const [message] = await db.sql<{ id: string; subject: string; payload: Record<string, unknown> }[]>`
    select id, subject, payload from outbox where id = ${`refund:${failed.refundId}:retry2`}`;
  expect(message).toMatchObject({
    subject,
    payload: {
      payment_id: id,
      mode: "live",
      refund_id: failed.refundId,
      amount: "500000",
      to: failed.to,
      from: "deposit",
      transfer_id: "failed:0",
      attestation: { keyId: "watcher-1", signature: "c2ln" },
      transfer_amount: "500000",
    },
  });
  // A refund already sent, or one the payment does not owe, is not published again.
  const sent = { paymentId: id, refundId: `${id}:sent:0:underpayment`, attempt: 2, subject };
  expect(await republishRefund(db.sql, sent)).toBe(false);
});
