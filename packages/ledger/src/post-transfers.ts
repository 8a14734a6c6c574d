// Posting movements as two-legged transfers (migration 2300): a movement's postings become one
// transfer per account of its larger side, and all of a batch's transfers and balance changes are
// written by one statement.
import { newId, type TransactionSql } from "@gateway/db";
import {
  type AccountRef,
  accountIds,
  type Book,
  InsufficientBalanceError,
  LedgerError,
  type LedgerTransactionInput,
} from "./ledger.js";

/** One transfer to write: `amount` from `debit` to `credit`; the first of its movement or linked to it. */
interface Leg {
  input: number;
  id: string;
  linkedTo: string | null;
  book: Book;
  debit: AccountRef;
  credit: AccountRef;
  amount: bigint;
}

/** A leg with its accounts' ids. */
type PostedLeg = Leg & { debitId: bigint; creditId: bigint };

/**
 * One balanced movement in the caller's SQL transaction, its zero postings left out. False when
 * its reference was posted before.
 */
export async function postTransaction(tx: TransactionSql, input: LedgerTransactionInput): Promise<boolean> {
  const [posted] = await postTransactions(tx, [input]);
  return posted!;
}

/**
 * Several movements in two statements (accounts read, one write); each answers as
 * `postTransaction` alone: false when its reference was posted before or all its postings are zero.
 */
export async function postTransactions(
  tx: TransactionSql,
  inputs: LedgerTransactionInput[],
): Promise<boolean[]> {
  const legs = inputs.flatMap((input, i) => legsOf(input, i));
  if (legs.length === 0) return inputs.map(() => false);
  const ids = await accountIds(
    tx,
    legs.flatMap((l) => [
      { ref: l.debit, book: l.book },
      { ref: l.credit, book: l.book },
    ]),
  );
  const posted: PostedLeg[] = legs.map((l, i) => ({ ...l, debitId: ids[2 * i]!, creditId: ids[2 * i + 1]! }));
  // A debit to a merchant account takes from it: its balance must be checked on its row, under lock.
  const taking = posted.some((l) => l.debit.kind.startsWith("merchant_"));
  if (taking) await lockMerchantAccounts(tx, posted);
  let written: { id: string }[];
  try {
    written = await writeTransfers(tx, inputs, posted, taking);
  } catch (err) {
    if (String((err as Error).message).includes("ledger_merchant_not_overdrawn")) {
      const taken = posted.find((l) => l.debit.kind.startsWith("merchant_"));
      throw new InsufficientBalanceError(0n, taken?.amount ?? 0n);
    }
    throw err;
  }
  const firsts = new Set(written.map((w) => w.id));
  const firstOf = new Map(legs.filter((l) => l.linkedTo === null).map((l) => [l.input, l.id]));
  return inputs.map((_, i) => firsts.has(firstOf.get(i) ?? ""));
}

/**
 * The non-zero postings as transfers from the single account of one side to each of the other's,
 * in posting order; a movement with several accounts on both sides has no such shape.
 */
function legsOf(input: LedgerTransactionInput, index: number): Leg[] {
  const signed = signedPostings(input);
  const debits = signed.filter((p) => p.amount > 0n);
  const credits = signed.filter((p) => p.amount < 0n);
  let pairs: { debit: AccountRef; credit: AccountRef; amount: bigint }[];
  if (signed.length === 0) pairs = [];
  else if (debits.length === 1)
    pairs = credits.map((c) => ({ debit: debits[0]!.ref, credit: c.ref, amount: -c.amount }));
  else if (credits.length === 1)
    pairs = debits.map((d) => ({ debit: d.ref, credit: credits[0]!.ref, amount: d.amount }));
  else throw new LedgerError(`${input.reference} has several debits and several credits`);
  const first = newId("ltx");
  const book = { mode: input.mode, chain: input.chain, coin: input.coin };
  return pairs.map((pair, n) => {
    if (sameAccount(pair.debit, pair.credit))
      throw new LedgerError(`${input.reference} moves an account to itself`);
    const id = n === 0 ? first : newId("ltr");
    return { input: index, id, linkedTo: n === 0 ? null : first, book, ...pair };
  });
}

const sameAccount = (a: AccountRef, b: AccountRef) => a.kind === b.kind && a.merchantId === b.merchantId;

/** The non-zero postings as signed amounts (debits positive), once the movement is known to balance. */
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
 * The batch's merchant accounts locked in id order before it writes their rows, so two batches
 * that take from merchants queue instead of deadlocking.
 */
async function lockMerchantAccounts(tx: TransactionSql, legs: PostedLeg[]): Promise<void> {
  const ids = new Set<bigint>();
  for (const l of legs) {
    if (l.debit.kind.startsWith("merchant_")) ids.add(l.debitId);
    if (l.credit.kind.startsWith("merchant_")) ids.add(l.creditId);
  }
  await tx`select 1 from ledger_accounts where id = any(${[...ids].map(String)}::bigint[]) order by id for update`;
}

// One balance change per account, summed from what was inserted (a replay inserts nothing). A
// taking batch writes merchant rows with their shards folded in, so the overdraft check sees the
// whole balance; every other change goes to the transaction's shard (migration 1600).
function writeTransfers(
  tx: TransactionSql,
  inputs: LedgerTransactionInput[],
  legs: PostedLeg[],
  taking: boolean,
): Promise<{ id: string }[]> {
  const of = <T>(pick: (input: LedgerTransactionInput) => T) => legs.map((l) => pick(inputs[l.input]!));
  const first = (pick: (input: LedgerTransactionInput) => bigint | null | undefined) =>
    legs.map((l) => (l.linkedTo === null ? (pick(inputs[l.input]!)?.toString() ?? null) : null)) as string[];
  return tx<{ id: string }[]>`
    with legs as (
      select * from unnest(${legs.map((l) => l.id)}::text[], ${of((i) => i.reference)}::text[],
        ${of((i) => i.kind)}::text[], ${of((i) => i.mode)}::text[], ${of((i) => i.chain)}::text[],
        ${of((i) => i.coin)}::text[], ${of((i) => i.merchantId ?? null) as string[]}::text[],
        ${of((i) => i.paymentId ?? null) as string[]}::uuid[], ${of((i) => i.payoutId ?? null) as string[]}::text[],
        ${legs.map((l) => l.debitId.toString())}::bigint[], ${legs.map((l) => l.creditId.toString())}::bigint[],
        ${legs.map((l) => l.amount.toString())}::bigint[], ${legs.map((l) => l.linkedTo) as string[]}::text[],
        ${first((i) => i.usdValue)}::bigint[], ${first((i) => i.usdRate)}::bigint[])
        as l(id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id, debit_account,
          credit_account, amount, linked_to, usd_value, usd_rate)),
    firsts as (
      insert into ledger_transfers (id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
        debit_account, credit_account, amount, usd_value_micros, usd_rate_micros)
      select id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id, debit_account,
        credit_account, amount, usd_value, usd_rate
      from legs where linked_to is null
      on conflict (reference) where linked_to is null do nothing
      returning id, debit_account, credit_account, amount),
    linked as (
      insert into ledger_transfers (id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id,
        debit_account, credit_account, amount, linked_to)
      select id, reference, kind, mode, chain, coin, merchant_id, payment_id, payout_id, debit_account,
        credit_account, amount, linked_to
      from legs where linked_to in (select id from firsts)
      returning debit_account, credit_account, amount),
    moved as (
      select debit_account as account, amount from firsts union all select credit_account, -amount from firsts
      union all select debit_account, amount from linked union all select credit_account, -amount from linked),
    moves as (
      select a.id, ${taking}::boolean and a.kind like 'merchant_%' as on_row,
        sum(case when a.normal_side = 'debit' then m.amount else -m.amount end)::bigint as movement
      from moved m join ledger_accounts a on a.id = m.account
      group by a.id),
    folded as (
      delete from ledger_balance_shards s using moves m
      where m.on_row and m.movement < 0 and s.account_id = m.id
      returning s.account_id, s.amount),
    on_rows as (
      update ledger_accounts a
      set balance = a.balance + m.movement
        + coalesce((select sum(f.amount) from folded f where f.account_id = a.id), 0)
      from moves m where m.on_row and a.id = m.id
      returning a.id),
    on_shards as (
      insert into ledger_balance_shards as b (account_id, shard, amount)
      select id, (pg_current_xact_id()::text::bigint % 16)::smallint, movement from moves
      where not on_row and movement <> 0
      order by id
      on conflict (account_id, shard) do update set amount = b.amount + excluded.amount
      returning account_id)
    select id from firsts`;
}
