// Posting balanced transactions to the double-entry ledger (migration 0500_ledger.sql).
import { newId, type Sql, type TransactionSql } from "@gateway/db";
import type { Chain, Coin, Mode } from "@gateway/domain";

export type MerchantAccountKind = "merchant_available" | "merchant_reserved";
export type PlatformAccountKind =
  | "platform_vault"
  | "platform_fees"
  | "platform_refunds"
  | "platform_gas_recovered"
  | "platform_gas_spent"
  | "platform_gas_wallet"
  | "platform_suspense";
export type AccountKind = MerchantAccountKind | PlatformAccountKind;

export type LedgerTransactionKind =
  | "payment_credited"
  | "refund_owed"
  | "refund_paid"
  | "payout_reserved"
  | "payout_completed"
  | "payout_released"
  | "gas_spent"
  | "suspense_received"
  | "suspense_paid";

/** Assets and expenses grow with debits; what the service owes (merchants, customers) and earns with credits. */
const NORMAL_SIDE: Readonly<Record<AccountKind, "debit" | "credit">> = {
  merchant_available: "credit",
  merchant_reserved: "credit",
  platform_vault: "debit",
  platform_fees: "credit",
  platform_refunds: "credit",
  platform_gas_recovered: "credit",
  platform_gas_spent: "debit",
  platform_gas_wallet: "debit",
  // Held for someone the database cannot name (after a restore): owed, like a refund.
  platform_suspense: "credit",
};

export type AccountRef =
  | { kind: MerchantAccountKind; merchantId: string }
  | { kind: PlatformAccountKind; merchantId?: undefined };

/** One side of a movement: `debit` or `credit` base units (positive) to one account. */
export type Posting = { account: AccountRef } & ({ debit: bigint } | { credit: bigint });

/** The (mode, chain, coin) every entry of one transaction shares. */
export interface Book {
  mode: Mode;
  chain: Chain;
  coin: Coin;
}

export interface LedgerTransactionInput extends Book {
  /** Unique cause (`payment:<id>:credit`, `payout:<id>:reserve`); a second post with it is a no-op. */
  reference: string;
  kind: LedgerTransactionKind;
  merchantId?: string;
  paymentId?: string;
  payoutId?: string;
  /** Payment credits: the USD value booked (micro-USD) and the rate used (micro-USD per coin). */
  usdValue?: bigint | null;
  usdRate?: bigint | null;
  postings: Posting[];
}

export class LedgerError extends Error {
  override name = "LedgerError";
}

/** A movement that would take a merchant balance below zero. */
export class InsufficientBalanceError extends LedgerError {
  override name = "InsufficientBalanceError";
  constructor(
    readonly available: bigint,
    readonly requested: bigint,
  ) {
    super(`insufficient balance: ${requested} requested, ${available} available`);
  }
}

type Db = Sql | TransactionSql;

/** The account's id, created on first use. */
export async function accountId(tx: Db, book: Book, account: AccountRef): Promise<bigint> {
  const merchantId = account.merchantId ?? null;
  const [created] = await tx<{ id: bigint }[]>`
    insert into ledger_accounts (kind, merchant_id, mode, chain, coin, normal_side)
    values (${account.kind}, ${merchantId}, ${book.mode}, ${book.chain}, ${book.coin}, ${NORMAL_SIDE[account.kind]})
    on conflict (kind, (coalesce(merchant_id, '')), mode, chain, coin) do nothing
    returning id`;
  if (created) return created.id;
  const [existing] = await tx<{ id: bigint }[]>`
    select id from ledger_accounts where kind = ${account.kind} and coalesce(merchant_id, '') = ${merchantId ?? ""}
      and mode = ${book.mode} and chain = ${book.chain} and coin = ${book.coin}`;
  if (!existing) throw new LedgerError(`ledger account ${account.kind} could not be created`);
  return existing.id;
}

/**
 * Locks a merchant account's row for the rest of the transaction and returns its balance, the
 * row's and its shards' (migration 1600): the movement that follows is checked against a balance
 * no concurrent transaction can lower (what takes from it waits for this lock), while credits
 * committed meanwhile can only raise it.
 *
 * The balance is read by a statement of its own, after the lock is held: a statement that waited
 * for the lock reads the row as the holder left it but the shards as they were when it started,
 * so a holder that folded the shards into the row would have them counted twice. Both statements
 * go out together (pipelined on the transaction's connection), one round trip.
 */
export async function lockedBalance(tx: TransactionSql, book: Book, account: AccountRef): Promise<bigint> {
  const id = await accountId(tx, book, account);
  const [, [row]] = await Promise.all([
    tx`select 1 from ledger_accounts where id = ${id} for update`,
    tx<{ balance: bigint }[]>`select balance from ledger_balances where id = ${id}`,
  ]);
  return row!.balance;
}

/**
 * Posts one balanced transaction inside the caller's SQL transaction. Postings of zero are left
 * out (a fee that takes the whole payment leaves a zero net). Returns false when a transaction
 * with the same reference exists already: the movement was posted before.
 */
export async function postTransaction(tx: TransactionSql, input: LedgerTransactionInput): Promise<boolean> {
  const signed = input.postings
    .map((p) => ({ account: p.account, amount: "debit" in p ? p.debit : -p.credit }))
    .filter((p) => p.amount !== 0n);
  for (const p of input.postings) {
    const value = "debit" in p ? p.debit : p.credit;
    if (value < 0n) throw new LedgerError(`negative posting in ${input.reference}`);
  }
  const sum = signed.reduce((total, p) => total + p.amount, 0n);
  if (sum !== 0n) throw new LedgerError(`transaction ${input.reference} does not balance (sum ${sum})`);
  if (signed.length === 0) return false;

  const accounts = await accountIds(
    tx,
    input,
    signed.map((p) => p.account),
  );
  const entries = signed.map((p, i) => ({ account: accounts[i]!, amount: p.amount, ref: p.account }));
  // Each entry updates its account's row: taking the rows in one global order (by id) means two
  // transactions over the same accounts queue instead of deadlocking (a hold and its release
  // touch the same two accounts in opposite posting orders). The sort is stable, and the entries
  // are inserted (and their balance triggers run) in the order of `ord`.
  entries.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  const id = newId("ltx");
  // The transaction and its entries in one statement: a second post with the same reference
  // inserts neither, and the statement answers with no rows.
  let written: { length: number };
  try {
    written = await tx`
      with posted as (
        insert into ledger_transactions (id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
          usd_value_micros, usd_rate_micros)
        values (${id}, ${input.reference}, ${input.kind}, ${input.mode}, ${input.chain}, ${input.coin},
          ${input.merchantId ?? null}, ${input.paymentId ?? null}, ${input.payoutId ?? null},
          ${input.usdValue ?? null}, ${input.usdRate ?? null})
        on conflict (reference) do nothing returning id)
      insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
      select posted.id, e.account_id, ${input.mode}, ${input.chain}, ${input.coin}, e.amount
      from posted, unnest(${entries.map((e) => e.account.toString())}::bigint[],
        ${entries.map((e) => e.amount.toString())}::bigint[]) with ordinality as e(account_id, amount, ord)
      order by e.ord
      returning 1`;
  } catch (err) {
    if (String((err as Error).message).includes("ledger_merchant_not_overdrawn")) {
      // Only an entry that takes from a merchant account (a debit to it) can overdraw it.
      const taking = entries.find((e) => e.ref.kind.startsWith("merchant_") && e.amount > 0n);
      throw new InsufficientBalanceError(0n, -(taking?.amount ?? 0n));
    }
    throw err;
  }
  return written.length > 0;
}

const accountKey = (kind: string, merchantId: string) => `${kind}\n${merchantId}`;

/**
 * The ids of a transaction's accounts in one query when they all exist (the usual case); an
 * account seen for the first time is created by `accountId`.
 */
async function accountIds(tx: Db, book: Book, accounts: AccountRef[]): Promise<bigint[]> {
  const rows = await tx<{ id: bigint; kind: string; merchant_id: string }[]>`
    select a.id, a.kind, coalesce(a.merchant_id, '') as merchant_id
    from unnest(${accounts.map((a) => a.kind)}::text[], ${accounts.map((a) => a.merchantId ?? "")}::text[])
      as w(kind, merchant_id)
    join ledger_accounts a on a.kind = w.kind and coalesce(a.merchant_id, '') = w.merchant_id
      and a.mode = ${book.mode} and a.chain = ${book.chain} and a.coin = ${book.coin}`;
  const found = new Map(rows.map((r) => [accountKey(r.kind, r.merchant_id), r.id]));
  const ids: bigint[] = [];
  for (const account of accounts) {
    ids.push(
      found.get(accountKey(account.kind, account.merchantId ?? "")) ?? (await accountId(tx, book, account)),
    );
  }
  return ids;
}
