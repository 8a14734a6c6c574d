import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { checkLedger, creditPayment, InsufficientBalanceError, merchantBalances } from "@gateway/ledger";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPayoutMessage, createPayout, type PayoutSubjects } from "./payout-actor.js";

let db: TestDatabase;
const subjects: PayoutSubjects = {
  payoutCommand: (chain) => `t.cmd.payout.${chain}`,
};

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const BOOK = { mode: "live", chain: "solana", coin: "USDC" } as const;

async function merchantWith(net: bigint): Promise<string> {
  const merchantId = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
  await db.sql.begin((tx) =>
    creditPayment(tx, { ...BOOK, paymentId: randomUUID(), merchantId, gross: net, fee: 0n, net }),
  );
  return merchantId;
}

const available = async (merchantId: string) =>
  (await merchantBalances(db.sql, merchantId, "live")).find((b) => b.coin === "USDC")!;

function newPayout(merchantId: string, amount: bigint) {
  return db.sql.begin((tx) =>
    createPayout(tx, subjects, {
      ...BOOK,
      merchantId,
      amount,
      networkFee: 300_000n,
      destination: "Dest1111111111111111111111111111111111111111",
      kind: "manual",
      approval: null,
    }),
  );
}

const apply = (id: string, message: Parameters<typeof applyPayoutMessage>[3]) =>
  db.sql.begin((tx) => applyPayoutMessage(tx, subjects, id, message));

describe("the payout actor", () => {
  it("creates a payout: its amount reserved and settlement asked, in one transaction", async () => {
    const merchantId = await merchantWith(10_000_000n);
    const row = await newPayout(merchantId, 4_000_000n);
    expect(row).toMatchObject({ status: "pending", simulated: false, txid: null });
    expect(await available(merchantId)).toMatchObject({ available: 6_000_000n, pending: 4_000_000n });
    const outbox = await db.sql`select subject, payload from outbox where id = ${`payout:${row.id}`}`;
    expect(outbox).toEqual([{ subject: "t.cmd.payout.solana", payload: { payout_id: row.id } }]);
    await expect(newPayout(merchantId, 7_000_000n)).rejects.toBeInstanceOf(InsufficientBalanceError);
  });

  it("completes once: a replay and a late failure change nothing and book nothing", async () => {
    const merchantId = await merchantWith(10_000_000n);
    const row = await newPayout(merchantId, 4_000_000n);
    expect((await apply(row.id, { type: "start" }))?.row.status).toBe("processing");
    const done = await apply(row.id, { type: "complete", txid: "sig1" });
    expect(done?.row).toMatchObject({ status: "completed", txid: "sig1" });
    expect(done?.row.completed_at).toBeInstanceOf(Date);
    expect((await apply(row.id, { type: "complete", txid: "sig2" }))?.decision.rejected?.code).toBe(
      "duplicate",
    );
    const late = await apply(row.id, { type: "fail", reason: "too late" });
    expect(late?.decision.rejected?.code).toBe("not_applicable");
    expect(late?.row).toMatchObject({ status: "completed", txid: "sig1", failure_reason: null });
    expect(await available(merchantId)).toMatchObject({ available: 6_000_000n, pending: 0n });
    const events = await db.sql<{ type: string }[]>`
      select type from events where payout_id = ${row.id} order by created_at, id`;
    expect(events.map((e) => e.type).sort()).toEqual(["payout.completed", "payout.processing"]);
    expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
  });

  it("a failure gives the reserve back; an unknown payout is undefined", async () => {
    const merchantId = await merchantWith(10_000_000n);
    const row = await newPayout(merchantId, 4_000_000n);
    const failed = await apply(row.id, { type: "fail", reason: "refused" });
    expect(failed?.row).toMatchObject({ status: "failed", failure_reason: "refused", completed_at: null });
    expect(await available(merchantId)).toMatchObject({ available: 10_000_000n, pending: 0n });
    expect(await apply("po_missing", { type: "start" })).toBeUndefined();
  });
});
