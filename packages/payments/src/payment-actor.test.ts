import { randomUUID } from "node:crypto";
import { busTopology } from "@gateway/bus";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES, toCoinUnits } from "@gateway/domain";
import { createLogger } from "@gateway/logging";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPaymentMessage, applyPaymentMessageToRow, type PaymentActorDeps } from "./payment-actor.js";
import { insertPayment, type PaymentRow, stateOf } from "./payment-row.js";

let db: TestDatabase;
let deps: PaymentActorDeps;
const merchantId = newId("mer");

beforeAll(async () => {
  db = await createTestDatabase();
  deps = {
    sql: db.sql,
    topology: busTopology("actor-test"),
    log: createLogger({ name: "actor-test", level: "silent" }),
    publicBaseUrl: "https://pay.example",
  };
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await db.drop();
});

async function newPayment(): Promise<PaymentRow> {
  const amount = 1250n;
  const state = initialPaymentState({
    id: randomUUID(),
    mode: "test",
    currency: "USD",
    amount,
    fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  const [row] = await db.sql<PaymentRow[]>`select * from payments where id = ${state.id}`;
  return row!;
}

const assign = (address: string) =>
  ({
    type: "wallet_assigned",
    chain: "solana",
    coin: "USDC",
    address,
    amountDue: toCoinUnits(1250n, "USD", "USDC"),
    quote: null,
  }) as const;

describe("applyPaymentMessageToRow", () => {
  it("applies a state-only message to the row it was read as, in one update", async () => {
    const row = await newPayment();
    const applied = await applyPaymentMessageToRow(deps, row, assign("addr-1"));
    expect(applied?.decision.rejected).toBeUndefined();
    expect(applied?.row.version).toBe(row.version + 1);
    expect(stateOf(applied!.row).wallet?.address).toBe("addr-1");
  });

  it("decides again on the current row when the row it read has changed meanwhile", async () => {
    const stale = await newPayment();
    await applyPaymentMessage(deps, stale.id, assign("addr-first"));
    // Decided on the stale row this would be a plain assignment; on the current one it replaces
    // the first wallet, and it is applied exactly once.
    const applied = await applyPaymentMessageToRow(deps, stale, assign("addr-second"));
    expect(applied?.decision.rejected).toBeUndefined();
    expect(applied?.row.version).toBe(stale.version + 2);
    expect(stateOf(applied!.row).wallet?.address).toBe("addr-second");
    // The same wallet again, from the stale row: the current row says it is a duplicate.
    const again = await applyPaymentMessageToRow(deps, stale, assign("addr-second"));
    expect(again?.decision.rejected?.code).toBe("duplicate");
    const [row] = await db.sql<PaymentRow[]>`select * from payments where id = ${stale.id}`;
    expect(row?.version).toBe(stale.version + 2);
  });
});

describe("a surplus refund's notice", () => {
  const notices = (paymentId: string) =>
    db.sql<{ id: string; subject: string; payload: Record<string, string> }[]>`
      select id, subject, payload from outbox
      where subject = ${deps.topology.subjects.mail("refund")} and payload->>'payment_id' = ${paymentId}`;

  it("goes to the customer's mailer when the surplus is sent, once, and not before", async () => {
    const row = await newPayment();
    const due = toCoinUnits(1250n, "USD", "USDC");
    await applyPaymentMessage(deps, row.id, assign("addr-over"));
    await applyPaymentMessage(deps, row.id, {
      type: "transfer_final",
      transferId: "solana:sig-over:0",
      coin: "USDC",
      amount: due + 2_000_000n,
      sender: "payer-1",
    });
    await applyPaymentMessage(deps, row.id, { type: "sweep_done", txid: "sweep-1" });
    expect(await notices(row.id)).toEqual([]);
    const refundId = `${row.id}:solana:sig-over:0:overpayment`;
    const sent = { type: "refund_sent", refundId, txid: "refund-sig" } as const;
    await applyPaymentMessage(deps, row.id, sent);
    expect(await applyPaymentMessage(deps, row.id, sent)).toMatchObject({
      decision: { rejected: { code: "duplicate" } },
    });
    const [notice, ...more] = await notices(row.id);
    expect(more).toEqual([]);
    expect(notice).toMatchObject({
      id: `refund-notice:${refundId}`,
      payload: { payment_id: row.id, refund_id: refundId },
    });
    expect(Number.isNaN(Date.parse(notice!.payload.sent_at!))).toBe(false);
  });

  it("goes with a simulated overpayment at once", async () => {
    const row = await newPayment();
    await applyPaymentMessage(deps, row.id, { type: "simulate", outcome: "overpaid" });
    expect((await notices(row.id)).map((n) => n.id)).toEqual([
      `refund-notice:${row.id}:simulated:overpayment`,
    ]);
  });
});
