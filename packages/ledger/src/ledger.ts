// The double-entry ledger's accounts and the shape of a movement (migrations 0500, 1600, 2300);
// posting is in post-transfers.ts.
import type { Sql, TransactionSql } from "@gateway/db";
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

const accountKey = (a: AccountRef, b: Book) =>
  [a.kind, a.merchantId ?? "", b.mode, b.chain, b.coin].join("\n");

/**
 * The ids of the postings' accounts, of any books, in one query when they all exist (the usual
 * case); an account seen for the first time is created by `accountId`.
 */
export async function accountIds(tx: Db, postings: { ref: AccountRef; book: Book }[]): Promise<bigint[]> {
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
