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

async function balancesOf(ids: bigint[]): Promise<bigint[]> {
  const rows = await db.sql<{ id: bigint; balance: bigint }[]>`
    select id, balance from ledger_balances where id in ${db.sql(ids)}`;
  return ids.map((id) => rows.find((r) => r.id === id)!.balance);
}

async function expectSound() {
  const check = await checkLedger(db.sql);
  expect(check).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
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

  it("credits, reservations, completions and releases of one merchant at once: no deadlock, no drift", async () => {
    const m = await merchant();
    await credit(m, 1_000_000n, 0n);
    const payout = (payoutId: string) => ({
      ...book,
      payoutId,
      merchantId: m,
      amount: 10_000n,
      networkFee: 100n,
    });
    const reserved = Array.from({ length: 20 }, () => newId("po"));
    for (const id of reserved) await db.sql.begin((tx) => reservePayout(tx, payout(id)));
    // Each settles one reserved payout (reserved taken from) while others reserve (available
    // taken from) and credits add to both accounts' shards: opposite orders over the same rows.
    const work = reserved.flatMap((id, i) => [
      db.sql.begin((tx) => (i % 2 === 0 ? completePayout(tx, payout(id)) : releasePayout(tx, payout(id)))),
      db.sql.begin((tx) => reservePayout(tx, payout(newId("po")))),
      credit(m, 5_000n, 50n),
    ]);
    await Promise.all(work);
    expect((await merchantBalances(db.sql, m, "live"))[0]).toMatchObject({
      // 1,000,000 + 20 credits of 4,950 − 10 completed and 20 new reservations of 10,000 each.
      available: 1_000_000n + 20n * 4_950n - 30n * 10_000n,
      pending: 20n * 10_000n,
    });
    await expectSound();
  });

  it("refuses an unbalanced movement; below it, the database keeps transfers positive, two-sided and append-only", async () => {
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
    // Below the library: a transfer is positive, between two accounts, and never edited.
    const vault = await accountOf("platform_vault", "debit");
    const fees = await accountOf("platform_fees", "credit");
    const raw = (amount: bigint, to: bigint) => db.sql`
      insert into ledger_transfers (id, reference, kind, mode, chain, coin, debit_account, credit_account, amount)
      values (${newId("ltx")}, ${newId("ref")}, 'gas_spent', 'live', 'solana', 'USDC', ${vault}, ${to}, ${amount})`;
    await expect(raw(0n, fees)).rejects.toThrow(/ledger_transfers_amount_check/);
    await expect(raw(5n, vault)).rejects.toThrow(/ledger_transfers_check/);
    await credit(m, 1_000_000n, 100_000n);
    await expect(db.sql`update ledger_transfers set amount = amount * 2`).rejects.toThrow(/append-only/);
    await expect(db.sql`delete from ledger_transfers`).rejects.toThrow(/append-only/);
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
    await expect(
      db.sql`update ledger_accounts set balance = balance - 1 where id = ${available}`,
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

  it("posts a movement of three accounts as a transfer and one linked to it, once", async () => {
    const m = await merchant();
    const paymentId = await credit(m, 1_000n, 30n);
    const transfers = await db.sql<
      { id: string; linked_to: string | null; amount: bigint; usd: bigint | null }[]
    >`
      select id, linked_to, amount, usd_value_micros as usd from ledger_transfers
      where payment_id = ${paymentId} order by linked_to nulls first`;
    expect(transfers.map((t) => t.amount)).toEqual([970n, 30n]);
    expect(transfers[1]!.linked_to).toBe(transfers[0]!.id);
    // A replay of the whole movement writes nothing, its linked transfer included.
    const again = await db.sql.begin((tx) =>
      creditPayment(tx, { ...book, paymentId, merchantId: m, gross: 1_000n, fee: 30n, net: 970n }),
    );
    expect(again).toBe(false);
    const [count] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from ledger_transfers where payment_id = ${paymentId}`;
    expect(count!.n).toBe(2);
    // A movement with several accounts on both sides has no transfer shape.
    const tangled = db.sql.begin((tx) =>
      postTransaction(tx, {
        ...book,
        reference: `manual:${newId("t")}`,
        kind: "gas_spent",
        postings: [
          { account: { kind: "platform_gas_spent" }, debit: 2n },
          { account: { kind: "platform_vault" }, debit: 2n },
          { account: { kind: "platform_gas_wallet" }, credit: 2n },
          { account: { kind: "platform_fees" }, credit: 2n },
        ],
      }),
    );
    await expect(tangled).rejects.toThrow(/several debits and several credits/);
    await expectSound();
  });

  it("finds a transfer whose account is of another book or another merchant", async () => {
    const [m, other] = [await merchant(), await merchant()];
    await credit(m, 500n, 0n);
    const vault = await accountOf("platform_vault", "debit");
    const [available] = await db.sql<{ id: bigint }[]>`
      select id from ledger_accounts where kind = 'merchant_available' and merchant_id = ${m}`;
    const rolledBack = new Error("rolled back");
    const seen = db.sql.begin(async (tx) => {
      const [crossed, foreign] = [newId("ltx"), newId("ltx")];
      await tx`insert into ledger_transfers (id, reference, kind, mode, chain, coin, merchant_id, debit_account,
          credit_account, amount)
        values (${crossed}, ${crossed}, 'payment_credited', 'test', 'solana', 'USDC', ${m}, ${vault}, ${available!.id}, 1),
          (${foreign}, ${foreign}, 'payment_credited', 'live', 'solana', 'USDC', ${other}, ${vault}, ${available!.id}, 1)`;
      const check = await checkLedger(tx);
      expect(check.crossedTransfers).toEqual([crossed, foreign].sort());
      throw rolledBack;
    });
    await expect(seen).rejects.toBe(rolledBack);
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
