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
  id: bigint;
  created_at: Date;
  transaction_id: string;
  kind: string;
  account: string;
  normal_side: "debit" | "credit";
  chain: string;
  coin: Coin;
  amount: bigint;
  usd_value_micros: bigint | null;
  payment_id: string | null;
  payout_id: string | null;
}

/** Every entry on the merchant's own accounts (available, reserved) in the range, in order. */
export function ledgerExportBatches(
  sql: Sql,
  range: LedgerExportRange,
  batchSize = 100,
): AsyncIterable<LedgerExportRow[]> {
  return sql<LedgerExportRow[]>`
    select e.id, e.created_at, e.transaction_id, t.kind, a.kind as account, a.normal_side,
           e.chain, e.coin, e.amount, t.usd_value_micros, t.payment_id, t.payout_id
    from ledger_accounts a
    join ledger_entries e on e.account_id = a.id
    join ledger_transactions t on t.id = e.transaction_id
    where a.merchant_id = ${range.merchantId} and a.mode = ${range.mode}
      and e.created_at >= ${range.from} and e.created_at < ${range.to}
    order by e.id`.cursor(batchSize);
}

/** `amount` is what the entry did to the account's balance: positive adds, negative takes. */
export function toLedgerExportRecord(row: LedgerExportRow): LedgerExportRecord {
  const change = row.normal_side === "debit" ? row.amount : -row.amount;
  return {
    entry_id: String(row.id),
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
