import { randomBytes, randomUUID } from "node:crypto";
import { migrate, type Sql } from "@gateway/db";
import { createDatabaseBefore, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger, creditPayment, merchantBalances } from "./index.js";

// Migration 2300 turns a ledger of transactions and entries into transfers, on a database that
// already holds them: every balance stays, and every movement keeps its reference.
let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createDatabaseBefore("2300");
  sql = db.sql;
});
afterAll(() => db?.drop());

/** The old schema's way: a transaction and its entries, the triggers keeping the balances. */
async function oldTransaction(
  reference: string,
  kind: string,
  link: { merchantId?: string; paymentId?: string; usd?: bigint },
  entries: [bigint, bigint][],
): Promise<string> {
  const id = `ltx_${randomBytes(6).toString("hex")}`;
  await sql.begin(async (tx) => {
    await tx`insert into ledger_transactions (id, reference, kind, mode, chain, coin, merchant_id, payment_id,
        usd_value_micros)
      values (${id}, ${reference}, ${kind}, 'live', 'solana', 'USDC', ${link.merchantId ?? null},
        ${link.paymentId ?? null}, ${link.usd?.toString() ?? null})`;
    for (const [account, amount] of entries) {
      await tx`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
        values (${id}, ${account.toString()}, 'live', 'solana', 'USDC', ${amount.toString()})`;
    }
  });
  return id;
}

describe("migration 2300 on a ledger with data", () => {
  it("turns each transaction into transfers with the same balances and references", async () => {
    await sql`insert into merchants (id, email, business_name, password_hash)
      values ('mer_1', 'shop@example.test', 'Shop', 'x')`;
    const account = async (kind: string, side: string, merchantId: string | null = null) =>
      (
        await sql<
          { id: bigint }[]
        >`insert into ledger_accounts (kind, merchant_id, mode, chain, coin, normal_side)
          values (${kind}, ${merchantId}, 'live', 'solana', 'USDC', ${side}) returning id`
      )[0]!.id;
    const vault = await account("platform_vault", "debit");
    const fees = await account("platform_fees", "credit");
    const gas = await account("platform_gas_recovered", "credit");
    const available = await account("merchant_available", "credit", "mer_1");
    const reserved = await account("merchant_reserved", "credit", "mer_1");
    const paymentId = randomUUID();
    const link = { merchantId: "mer_1" };
    const credited = await oldTransaction(
      `payment:${paymentId}:credit`,
      "payment_credited",
      { ...link, paymentId, usd: 1_000n },
      [
        [vault, 1_000n],
        [available, -970n],
        [fees, -30n],
      ],
    );
    await oldTransaction("payout:po_1:reserve", "payout_reserved", link, [
      [available, 500n],
      [reserved, -500n],
    ]);
    const settled = await oldTransaction("payout:po_1:settle", "payout_completed", link, [
      [reserved, 500n],
      [vault, -490n],
      [gas, -10n],
    ]);
    const before = await sql<
      { id: bigint; balance: bigint }[]
    >`select id, balance from ledger_balances order by id`;

    expect(await migrate(sql)).toContain("2300_ledger_transfers.sql");

    expect(await sql`select id, balance from ledger_balances order by id`).toEqual(before);
    expect(await checkLedger(sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
    const transfers = await sql<
      { id: string; reference: string; debit: bigint; credit: bigint; amount: bigint }[]
    >`
      select id, reference, debit_account as debit, credit_account as credit, amount, linked_to, usd_value_micros
      from ledger_transfers order by created_at, id`;
    expect(transfers).toEqual([
      expect.objectContaining({
        id: credited,
        debit: vault,
        credit: available,
        amount: 970n,
        usd_value_micros: 1_000n,
      }),
      expect.objectContaining({
        id: `${credited}.2`,
        debit: vault,
        credit: fees,
        amount: 30n,
        linked_to: credited,
      }),
      expect.objectContaining({
        reference: "payout:po_1:reserve",
        debit: available,
        credit: reserved,
        amount: 500n,
      }),
      expect.objectContaining({ id: settled, debit: reserved, credit: vault, amount: 490n, linked_to: null }),
      expect.objectContaining({
        id: `${settled}.2`,
        debit: reserved,
        credit: gas,
        amount: 10n,
        linked_to: settled,
      }),
    ]);
    // A movement posted before the migration is still posted once.
    const replay = { mode: "live", chain: "solana", coin: "USDC", paymentId, merchantId: "mer_1" } as const;
    expect(
      await sql.begin((tx) => creditPayment(tx, { ...replay, gross: 1_000n, fee: 30n, net: 970n })),
    ).toBe(false);
    expect(await merchantBalances(sql, "mer_1", "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 470n, pending: 0n },
    ]);
  });
});
