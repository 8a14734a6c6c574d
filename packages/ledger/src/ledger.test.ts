import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkLedger,
  completePayout,
  creditPayment,
  InsufficientBalanceError,
  LedgerError,
  merchantBalances,
  owePaymentRefund,
  payPaymentRefund,
  postTransaction,
  recordGasSpent,
  releasePayout,
  reservePayout,
} from "./index.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function merchant(): Promise<string> {
  const id = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${id}, ${`${id}@example.test`}, 'Shop', 'x')`;
  return id;
}

const book = { mode: "live", chain: "solana", coin: "USDC" } as const;

async function credit(merchantId: string, gross: bigint, fee: bigint) {
  const paymentId = randomUUID();
  await db.sql.begin((tx) =>
    creditPayment(tx, { ...book, paymentId, merchantId, gross, fee, net: gross - fee }),
  );
  return paymentId;
}

async function expectSound() {
  const check = await checkLedger(db.sql);
  expect(check).toEqual({ total: 0n, unbalancedTransactions: [], driftedAccounts: [] });
}

describe("ledger", () => {
  it("credits a payment net of fee, once per payment", async () => {
    const m = await merchant();
    const paymentId = await credit(m, 10_000_000n, 100_000n);
    const again = await db.sql.begin((tx) =>
      creditPayment(tx, {
        ...book,
        paymentId,
        merchantId: m,
        gross: 10_000_000n,
        fee: 100_000n,
        net: 9_900_000n,
      }),
    );
    expect(again).toBe(false);
    expect(await merchantBalances(db.sql, m, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 9_900_000n, pending: 0n },
    ]);
    expect(await merchantBalances(db.sql, m, "test")).toEqual([]);
    await expectSound();
  });

  it("reserves, completes and releases payouts; balances equal credits minus payouts", async () => {
    const m = await merchant();
    await credit(m, 5_000_000n, 100_000n);
    await credit(m, 3_000_000n, 100_000n);
    const move = (payoutId: string, amount: bigint, networkFee = 0n) => ({
      ...book,
      payoutId,
      merchantId: m,
      amount,
      networkFee,
    });
    const a = move(newId("po"), 2_000_000n, 300_000n);
    const b = move(newId("po"), 1_000_000n);
    await db.sql.begin((tx) => reservePayout(tx, a));
    await db.sql.begin((tx) => reservePayout(tx, b));
    expect((await merchantBalances(db.sql, m, "live"))[0]).toMatchObject({
      available: 4_800_000n,
      pending: 3_000_000n,
    });
    await db.sql.begin((tx) => completePayout(tx, a));
    await db.sql.begin((tx) => releasePayout(tx, b));
    // Settled once: a release after completion (or the reverse) is refused by the shared reference.
    expect(await db.sql.begin((tx) => releasePayout(tx, a))).toBe(false);
    expect((await merchantBalances(db.sql, m, "live"))[0]).toMatchObject({
      available: 5_800_000n,
      pending: 0n,
    });
    const [fees] = await db.sql<{ balance: bigint }[]>`
      select balance from ledger_accounts where kind = 'platform_gas_recovered' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
    expect(fees!.balance).toBe(300_000n);
    await expectSound();
  });

  it("refuses a payout above the available balance", async () => {
    const m = await merchant();
    await credit(m, 1_000_000n, 100_000n);
    const err = await db.sql
      .begin((tx) =>
        reservePayout(tx, {
          ...book,
          payoutId: newId("po"),
          merchantId: m,
          amount: 900_001n,
          networkFee: 0n,
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsufficientBalanceError);
    expect((err as InsufficientBalanceError).available).toBe(900_000n);
    await expectSound();
  });

  it("20 concurrent payouts against one balance never overdraw it", async () => {
    const m = await merchant();
    await credit(m, 10_100_000n, 100_000n); // 10.00 available
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db.sql.begin((tx) =>
          reservePayout(tx, {
            ...book,
            payoutId: newId("po"),
            merchantId: m,
            amount: 3_000_000n,
            networkFee: 0n,
          }),
        ),
      ),
    );
    const accepted = results.filter((r) => r.status === "fulfilled").length;
    expect(accepted).toBe(3);
    for (const r of results) {
      if (r.status === "rejected") expect(r.reason).toBeInstanceOf(InsufficientBalanceError);
    }
    expect((await merchantBalances(db.sql, m, "live"))[0]).toMatchObject({
      available: 1_000_000n,
      pending: 9_000_000n,
    });
    await expectSound();
  });

  it("the database refuses an overdraft and an unbalanced transaction even without the checks", async () => {
    const m = await merchant();
    const overdraw = db.sql.begin((tx) =>
      postTransaction(tx, {
        ...book,
        reference: `manual:${newId("t")}`,
        kind: "payout_reserved",
        merchantId: m,
        postings: [
          { account: { kind: "merchant_available", merchantId: m }, debit: 1n },
          { account: { kind: "merchant_reserved", merchantId: m }, credit: 1n },
        ],
      }),
    );
    await expect(overdraw).rejects.toBeInstanceOf(InsufficientBalanceError);
    const unbalanced = db.sql.begin((tx) =>
      postTransaction(tx, {
        ...book,
        reference: `manual:${newId("t")}`,
        kind: "gas_spent",
        postings: [{ account: { kind: "platform_gas_spent" }, debit: 1n }],
      }),
    );
    await expect(unbalanced).rejects.toBeInstanceOf(LedgerError);
    // Below the library: raw entries that do not sum to zero fail at commit.
    const raw = db.sql.begin(async (tx) => {
      const id = newId("ltx");
      await tx`insert into ledger_transactions (id, reference, kind, mode, chain, coin)
        values (${id}, ${id}, 'gas_spent', 'live', 'solana', 'SOL')`;
      const [acct] = await tx<
        { id: bigint }[]
      >`insert into ledger_accounts (kind, mode, chain, coin, normal_side)
        values ('platform_gas_spent', 'live', 'solana', 'SOL', 'debit')
        on conflict (kind, (coalesce(merchant_id, '')), mode, chain, coin) do update set kind = excluded.kind
        returning id`;
      await tx`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
        values (${id}, ${acct!.id}, 'live', 'solana', 'SOL', 5)`;
    });
    await expect(raw).rejects.toThrow(/does not balance/);
    // Entries are append-only.
    await credit(m, 1_000_000n, 100_000n);
    await expect(db.sql`update ledger_entries set amount = amount * 2`).rejects.toThrow(/append-only/);
    await expectSound();
  });

  it("records vault refunds and gas", async () => {
    const paymentId = randomUUID();
    const refund = { ...book, paymentId, refundId: `${paymentId}:overpayment`, amount: 250_000n };
    await db.sql.begin((tx) => owePaymentRefund(tx, refund));
    await db.sql.begin((tx) => payPaymentRefund(tx, refund));
    await db.sql.begin((tx) =>
      recordGasSpent(tx, {
        reference: `sweep:${paymentId}`,
        mode: "live",
        chain: "solana",
        coin: "SOL",
        amount: 5000n,
      }),
    );
    const [refunds] = await db.sql<{ balance: bigint }[]>`
      select balance from ledger_accounts where kind = 'platform_refunds' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
    expect(refunds!.balance).toBe(0n);
    await expectSound();
  });
});
