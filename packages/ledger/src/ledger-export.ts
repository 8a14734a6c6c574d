// Ledger movements as an accountant reads them: one flat record per row, for the
// CSV exports. Each read is a server-side cursor, a batch of rows in memory at a time.
import type { Sql } from "@gateway/db";
import { type Coin, formatAmount, formatMicroUsd, type Mode } from "@gateway/domain";

export interface LedgerExportRange {
  merchantId: string;
  mode: Mode;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

export const LEDGER_EXPORT_COLUMNS = [
  "entry_id",
  "created_at",
  "transaction_id",
  "type",
  "account",
  "chain",
  "coin",
  "amount",
  "usd_value",
  "payment_id",
  "payout_id",
] as const;
export type LedgerExportRecord = Record<(typeof LEDGER_EXPORT_COLUMNS)[number], string>;

export interface LedgerExportRow {
  /** The transfer's id and the account's side of it: one transfer can move two of the merchant's accounts. */
  entry_id: string;
  created_at: Date;
  transaction_id: string;
  kind: string;
  account: string;
  normal_side: "debit" | "credit";
  chain: string;
  coin: Coin;
  /** Debits positive. */
  amount: bigint;
  usd_value_micros: bigint | null;
  payment_id: string | null;
  payout_id: string | null;
}

/**
 * Every transfer on the merchant's own accounts (available, reserved) in the range, in order, one
 * row per account it moves. A movement's transfers share its `transaction_id` (its first one's id).
 */
export function ledgerExportBatches(
  sql: Sql,
  range: LedgerExportRange,
  batchSize = 100,
): AsyncIterable<LedgerExportRow[]> {
  return sql<LedgerExportRow[]>`
    select t.id || ':' || s.side as entry_id, t.created_at, coalesce(t.linked_to, t.id) as transaction_id,
           t.kind, a.kind as account, a.normal_side, t.chain, t.coin,
           case when s.side = 'debit' then t.amount else -t.amount end as amount,
           t.usd_value_micros, t.payment_id, t.payout_id
    from ledger_transfers t
    cross join lateral (values ('debit', t.debit_account), ('credit', t.credit_account)) as s(side, account_id)
    join ledger_accounts a on a.id = s.account_id
    where t.merchant_id = ${range.merchantId} and t.mode = ${range.mode}
      and t.created_at >= ${range.from} and t.created_at < ${range.to}
      and a.merchant_id = ${range.merchantId}
    order by t.created_at, coalesce(t.linked_to, t.id), t.id, s.side`.cursor(batchSize);
}

/** `amount` is what the transfer did to the account's balance: positive adds, negative takes. */
export function toLedgerExportRecord(row: LedgerExportRow): LedgerExportRecord {
  const change = row.normal_side === "debit" ? row.amount : -row.amount;
  return {
    entry_id: row.entry_id,
    created_at: row.created_at.toISOString(),
    transaction_id: row.transaction_id,
    type: row.kind,
    account: row.account,
    chain: row.chain,
    coin: row.coin,
    amount: formatAmount(change, row.coin),
    usd_value: row.usd_value_micros === null ? "" : formatMicroUsd(row.usd_value_micros),
    payment_id: row.payment_id ?? "",
    payout_id: row.payout_id ?? "",
  };
}
