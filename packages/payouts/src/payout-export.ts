// Payouts as an accountant reads them: one flat record per row, for the CSV exports. The read is
// a server-side cursor, a batch of rows in memory at a time.
import type { Sql } from "@gateway/db";
import { formatAmount } from "@gateway/domain";
import type { LedgerExportRange } from "@gateway/ledger";
import type { PayoutRow } from "./payout-row.js";

export const PAYOUT_EXPORT_COLUMNS = [
  "payout_id",
  "created_at",
  "completed_at",
  "status",
  "kind",
  "is_test",
  "simulated",
  "chain",
  "coin",
  "amount",
  "network_fee",
  "net_amount",
  "usd_value",
  "destination",
  "transaction_hash",
  "failure_reason",
] as const;
export type PayoutExportRecord = Record<(typeof PAYOUT_EXPORT_COLUMNS)[number], string>;

export function payoutExportBatches(
  sql: Sql,
  range: LedgerExportRange,
  batchSize = 100,
): AsyncIterable<PayoutRow[]> {
  return sql<PayoutRow[]>`
    select * from payouts
    where merchant_id = ${range.merchantId} and mode = ${range.mode}
      and created_at >= ${range.from} and created_at < ${range.to}
    order by created_at, id`.cursor(batchSize);
}

/** Payouts are in USDC or USDT, so their USD value is their amount. */
export function toPayoutExportRecord(row: PayoutRow): PayoutExportRecord {
  const amount = formatAmount(row.amount, row.coin);
  return {
    payout_id: row.id,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? "",
    status: row.status,
    kind: row.kind,
    is_test: String(row.mode === "test"),
    simulated: String(row.simulated),
    chain: row.chain,
    coin: row.coin,
    amount,
    network_fee: formatAmount(row.network_fee, row.coin),
    net_amount: formatAmount(row.amount - row.network_fee, row.coin),
    usd_value: amount,
    destination: row.destination,
    transaction_hash: row.txid ?? "",
    failure_reason: row.failure_reason ?? "",
  };
}
