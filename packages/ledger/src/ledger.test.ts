import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { createTestDatabase, gate, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkLedger,
  completePayout,
  creditPayment,
  InsufficientBalanceError,
  LedgerError,
  lockedBalance,
  merchantBalances,
  owePaymentRefund,
  paymentCredit,
  payPaymentRefund,
  postTransaction,
  postTransactions,
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

/** A ledger account of `book`, created if new. */
async function accountOf(kind: string, normalSide: "debit" | "credit", merchantId: string | null = null) {
  const [row] = await db.sql<{ id: bigint }[]>`
    insert into ledger_accounts (kind, merchant_id, mode, chain, coin, normal_side)
    values (${kind}, ${merchantId}, ${book.mode}, ${book.chain}, ${book.coin}, ${normalSide})
    on conflict (kind, (coalesce(merchant_id, '')), mode, chain, coin) do update set kind = excluded.kind
    returning id`;
  return row!.id;
}

/** A ledger transaction of `book` with no entries yet, written below the library. */
async function rawTransaction(merchantId: string | null = null) {
  const id = newId("ltx");
  await db.sql`insert into ledger_transactions (id, reference, kind, mode, chain, coin, merchant_id)
    values (${id}, ${id}, 'payment_credited', ${book.mode}, ${book.chain}, ${book.coin}, ${merchantId})`;
  return id;
}

async function balancesOf(ids: bigint[]): Promise<bigint[]> {
  const rows = await db.sql<{ id: bigint; balance: bigint }[]>`
    select id, balance from ledger_balances where id in ${db.sql(ids)}`;
  return ids.map((id) => rows.find((r) => r.id === id)!.balance);
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
      select balance from ledger_balances where kind = 'platform_gas_recovered' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
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
    // Below the library: raw entries that do not sum to zero fail with their statement.
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

  it("keeps what credits add in shards; a payout folds the merchant's into its row and checks the whole", async () => {
    const m = await merchant();
    const vault = await accountOf("platform_vault", "debit");
    const available = await accountOf("merchant_available", "credit", m);
    const [vaultBefore] = await balancesOf([vault]);
    await Promise.all(Array.from({ length: 40 }, () => credit(m, 1_000n, 10n)));
    // Neither row moved; the 40 credits landed on several of each account's 16 shards.
    const rows = async (id: bigint) => {
      const [row] = await db.sql<{ balance: bigint }[]>`select balance from ledger_accounts where id = ${id}`;
      const shards = await db.sql<{ shard: number; amount: bigint }[]>`
        select shard, amount from ledger_balance_shards where account_id = ${id}`;
      return { row: row!.balance, shards };
    };
    expect((await rows(vault)).row).toBe(0n);
    const before = await rows(available);
    expect(before.row).toBe(0n);
    expect(before.shards.length).toBeGreaterThan(1);
    expect(before.shards.every((s) => s.shard >= 0 && s.shard < 16)).toBe(true);
    // Read whole through the view: the row plus its shards.
    expect(await balancesOf([vault, available])).toEqual([vaultBefore! + 40_000n, 40n * 990n]);
    expect(await merchantBalances(db.sql, m, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 40n * 990n, pending: 0n },
    ]);
    // A payout of the whole balance is allowed (it sees the shards) and folds them into the row.
    const payout = { ...book, merchantId: m, networkFee: 0n };
    await db.sql.begin((tx) => reservePayout(tx, { ...payout, payoutId: newId("po"), amount: 39_600n }));
    expect(await rows(available)).toEqual({ row: 0n, shards: [] });
    // Nothing is left: one unit more is refused, by the library and by the row's check below it.
    await expect(
      db.sql.begin((tx) => reservePayout(tx, { ...payout, payoutId: newId("po"), amount: 1n })),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    const t = await rawTransaction(m);
    await expect(
      db.sql`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
        values (${t}, ${available}, 'live', 'solana', 'USDC', 1), (${t}, ${vault}, 'live', 'solana', 'USDC', -1)`,
    ).rejects.toThrow(/ledger_merchant_not_overdrawn/);
    await expectSound();
  });

  it("reads a balance locked after a payout that folded the shards: each credit counted once", async () => {
    const m = await merchant();
    await Promise.all(Array.from({ length: 4 }, () => credit(m, 1_000n, 0n)));
    const available = { kind: "merchant_available", merchantId: m } as const;
    // A payout holds the row, its posting having folded the 4,000 of the shards into it.
    const committing = gate();
    const folded = gate();
    const payout = db.sql.begin(async (tx) => {
      await reservePayout(tx, {
        ...book,
        merchantId: m,
        networkFee: 0n,
        payoutId: newId("po"),
        amount: 100n,
      });
      folded.open();
      await committing.opened;
    });
    await folded.opened;
    // A second reader waits for the row; once the payout commits it must see 3,900, not the
    // row's 3,900 plus the 4,000 its shards held when it started waiting.
    const reading = db.sql.begin((tx) => lockedBalance(tx, book, available));
    await new Promise((resolve) => setTimeout(resolve, 200));
    committing.open();
    await payout;
    expect(await reading).toBe(3_900n);
    await expectSound();
  });

  it("refuses unbalanced entries beside balanced ones, and entries that unbalance a transaction later", async () => {
    const vault = await accountOf("platform_vault", "debit");
    const fees = await accountOf("platform_fees", "credit");
    const before = await balancesOf([vault, fees]);
    const [a, b] = [await rawTransaction(), await rawTransaction()];
    // Two transactions in one statement, the second unbalanced: the statement (its own SQL
    // transaction) is refused whole.
    await expect(
      db.sql`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
        values (${a}, ${vault}, 'live', 'solana', 'USDC', 7), (${a}, ${fees}, 'live', 'solana', 'USDC', -7),
               (${b}, ${vault}, 'live', 'solana', 'USDC', 3)`,
    ).rejects.toThrow(new RegExp(`ledger transaction ${b} does not balance \\(sum 3\\)`));
    expect(await balancesOf([vault, fees])).toEqual(before);
    // Balanced in one statement: both accounts move, each by its normal side.
    await db.sql`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
      values (${a}, ${vault}, 'live', 'solana', 'USDC', 7), (${a}, ${fees}, 'live', 'solana', 'USDC', -7)`;
    expect(await balancesOf([vault, fees])).toEqual([before[0]! + 7n, before[1]! + 7n]);
    // A later statement cannot unbalance it: its entries are summed with the ones before.
    await expect(
      db.sql`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
        values (${a}, ${vault}, 'live', 'solana', 'USDC', 2)`,
    ).rejects.toThrow(/does not balance \(sum 2\)/);
    await db.sql`insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
      values (${a}, ${vault}, 'live', 'solana', 'USDC', 2), (${a}, ${fees}, 'live', 'solana', 'USDC', -2)`;
    expect(await balancesOf([vault, fees])).toEqual([before[0]! + 9n, before[1]! + 9n]);
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
      select balance from ledger_balances where kind = 'platform_refunds' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
    expect(refunds!.balance).toBe(0n);
    await expectSound();
  });

  it("posts many transactions of several books at once, each as it would be alone", async () => {
    const [m1, m2] = [await merchant(), await merchant()];
    const replayed = await credit(m1, 1_000_000n, 10_000n);
    const creditOf = (merchantId: string, gross: bigint, b: typeof book | typeof suiBook = book) =>
      paymentCredit({ ...b, paymentId: randomUUID(), merchantId, gross, fee: 1_000n, net: gross - 1_000n });
    const suiBook = { mode: "test", chain: "sui", coin: "SUI" } as const;
    const first = creditOf(m1, 2_000_000n);
    const posted = await db.sql.begin((tx) =>
      postTransactions(tx, [
        first,
        creditOf(m2, 3_000_000n),
        creditOf(m2, 4_000_000n, suiBook),
        // All zero: posts nothing.
        { ...creditOf(m1, 0n), postings: [{ account: { kind: "platform_vault" }, debit: 0n }] },
        // The same reference again in the same call, and one posted before: both move nothing.
        { ...first, postings: first.postings.map((p) => ({ ...p })) },
        paymentCredit({
          ...book,
          paymentId: replayed,
          merchantId: m1,
          gross: 1_000_000n,
          fee: 10_000n,
          net: 990_000n,
        }),
      ]),
    );
    expect(posted).toEqual([true, true, true, false, false, false]);
    expect(await merchantBalances(db.sql, m1, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 990_000n + 1_999_000n, pending: 0n },
    ]);
    expect(await merchantBalances(db.sql, m2, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 2_999_000n, pending: 0n },
    ]);
    expect(await merchantBalances(db.sql, m2, "test")).toEqual([
      { chain: "sui", coin: "SUI", available: 3_999_000n, pending: 0n },
    ]);
    const unbalanced = db.sql.begin((tx) =>
      postTransactions(tx, [
        creditOf(m1, 5n),
        { ...creditOf(m1, 5n), postings: [{ account: { kind: "platform_vault" }, debit: 5n }] },
      ]),
    );
    await expect(unbalanced).rejects.toBeInstanceOf(LedgerError);
    await expectSound();
  });
});
