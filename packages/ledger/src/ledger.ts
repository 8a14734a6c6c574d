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
  const [posted] = await postTransactions(tx, [input]);
  return posted!;
}

interface Entry {
  input: number;
  transactionId: string;
  book: Book;
  ref: AccountRef;
  account: bigint;
  amount: bigint;
}

/**
 * Several balanced transactions in two statements (accounts read, one insert); each answers as
 * `postTransaction` alone: false when its reference was posted before or all its postings are zero.
 */
export async function postTransactions(
  tx: TransactionSql,
  inputs: LedgerTransactionInput[],
): Promise<boolean[]> {
  const ids = inputs.map(() => newId("ltx"));
  const signed = inputs.flatMap((input, i) =>
    signedPostings(input).map((p) => ({ input: i, transactionId: ids[i]!, book: inBook(input), ...p })),
  );
  if (signed.length === 0) return inputs.map(() => false);
  const accounts = await accountIds(tx, signed);
  const entries: Entry[] = signed.map((p, i) => ({ ...p, account: accounts[i]! }));
  // Each entry updates its account's rows: taking them in one global order (by id) means two
  // transactions over the same accounts queue instead of deadlocking (a hold and its release
  // touch the same two accounts in opposite posting orders). The sort is stable, and the entries
  // are inserted (and their balance triggers run) in the order of `ord`.
  entries.sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  let written: { transaction_id: string }[];
  try {
    // A transaction without entries (all its postings zero) is not posted at all.
    const moving = new Set(entries.map((e) => e.input));
    const kept = [...moving].sort((a, b) => a - b);
    written = await insertPosted(
      tx,
      kept.map((i) => inputs[i]!),
      kept.map((i) => ids[i]!),
      entries,
    );
  } catch (err) {
    if (String((err as Error).message).includes("ledger_merchant_not_overdrawn")) {
      // Only an entry that takes from a merchant account (a debit to it) can overdraw it.
      const taking = entries.find((e) => e.ref.kind.startsWith("merchant_") && e.amount > 0n);
      throw new InsufficientBalanceError(0n, -(taking?.amount ?? 0n));
    }
    throw err;
  }
  const posted = new Set(written.map((w) => w.transaction_id));
  return ids.map((id) => posted.has(id));
}

/** The book a transaction's entries share. */
const inBook = (b: Book): Book => ({ mode: b.mode, chain: b.chain, coin: b.coin });

/** The non-zero postings as signed amounts (debits positive), once the transaction is known to balance. */
function signedPostings(input: LedgerTransactionInput): { ref: AccountRef; amount: bigint }[] {
  for (const p of input.postings) {
    const value = "debit" in p ? p.debit : p.credit;
    if (value < 0n) throw new LedgerError(`negative posting in ${input.reference}`);
  }
  const signed = input.postings
    .map((p) => ({ ref: p.account, amount: "debit" in p ? p.debit : -p.credit }))
    .filter((p) => p.amount !== 0n);
  const sum = signed.reduce((total, p) => total + p.amount, 0n);
  if (sum !== 0n) throw new LedgerError(`transaction ${input.reference} does not balance (sum ${sum})`);
  return signed;
}

/**
 * The transactions and their entries in one statement; one whose reference exists (before, or
 * earlier in `inputs`) is inserted with no entries. Answers with the ids that were inserted.
 */
function insertPosted(
  tx: TransactionSql,
  inputs: LedgerTransactionInput[],
  ids: string[],
  entries: Entry[],
): Promise<{ transaction_id: string }[]> {
  const column = <T>(of: (input: LedgerTransactionInput) => T) => inputs.map(of);
  const text = (of: (input: LedgerTransactionInput) => bigint | null | undefined) =>
    column((i) => of(i)?.toString() ?? null) as string[];
  return tx<{ transaction_id: string }[]>`
    with posted as (
      insert into ledger_transactions (id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
        usd_value_micros, usd_rate_micros)
      select t.id, t.reference, t.kind, t.mode, t.chain, t.coin, t.merchant_id, t.payment_id, t.payout_id,
        t.usd_value, t.usd_rate
      from unnest(${ids}::text[], ${column((i) => i.reference)}::text[], ${column((i) => i.kind)}::text[],
        ${column((i) => i.mode)}::text[], ${column((i) => i.chain)}::text[], ${column((i) => i.coin)}::text[],
        ${column((i) => i.merchantId ?? null) as string[]}::text[],
        ${column((i) => i.paymentId ?? null) as string[]}::uuid[],
        ${column((i) => i.payoutId ?? null) as string[]}::text[],
        ${text((i) => i.usdValue)}::bigint[], ${text((i) => i.usdRate)}::bigint[])
        with ordinality as t(id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
          usd_value, usd_rate, ord)
      order by t.ord
      on conflict (reference) do nothing returning id)
    insert into ledger_entries (transaction_id, account_id, mode, chain, coin, amount)
    select e.transaction_id, e.account_id, e.mode, e.chain, e.coin, e.amount
    from unnest(${entries.map((e) => e.transactionId)}::text[], ${entries.map((e) => e.account.toString())}::bigint[],
      ${entries.map((e) => e.book.mode)}::text[], ${entries.map((e) => e.book.chain)}::text[],
      ${entries.map((e) => e.book.coin)}::text[], ${entries.map((e) => e.amount.toString())}::bigint[])
      with ordinality as e(transaction_id, account_id, mode, chain, coin, amount, ord)
    where e.transaction_id in (select id from posted)
    order by e.ord
    returning transaction_id`;
}

const accountKey = (a: AccountRef, b: Book) =>
  [a.kind, a.merchantId ?? "", b.mode, b.chain, b.coin].join("\n");

/**
 * The ids of the postings' accounts, of any books, in one query when they all exist (the usual
 * case); an account seen for the first time is created by `accountId`.
 */
async function accountIds(tx: Db, postings: { ref: AccountRef; book: Book }[]): Promise<bigint[]> {
  const wanted = [...new Map(postings.map((p) => [accountKey(p.ref, p.book), p])).values()];
  const rows = await tx<
    { id: bigint; kind: string; merchant_id: string; mode: Mode; chain: Chain; coin: Coin }[]
  >`
    select a.id, a.kind, coalesce(a.merchant_id, '') as merchant_id, a.mode, a.chain, a.coin
    from unnest(${wanted.map((w) => w.ref.kind)}::text[], ${wanted.map((w) => w.ref.merchantId ?? "")}::text[],
      ${wanted.map((w) => w.book.mode)}::text[], ${wanted.map((w) => w.book.chain)}::text[],
      ${wanted.map((w) => w.book.coin)}::text[]) as w(kind, merchant_id, mode, chain, coin)
    join ledger_accounts a on a.kind = w.kind and coalesce(a.merchant_id, '') = w.merchant_id
      and a.mode = w.mode and a.chain = w.chain and a.coin = w.coin`;
  const found = new Map(
    rows.map((r) => [
      accountKey({ kind: r.kind, merchantId: r.merchant_id || undefined } as AccountRef, r),
      r.id,
    ]),
  );
  const ids: bigint[] = [];
  for (const { ref, book } of postings) {
    const key = accountKey(ref, book);
    let id = found.get(key);
    if (id === undefined) {
      id = await accountId(tx, book, ref);
      found.set(key, id);
    }
    ids.push(id);
  }
  return ids;
}
