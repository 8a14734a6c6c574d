// Payments as an accountant reads them: one flat record per payment, for the CSV export.
import type { Sql } from "@gateway/db";
import {
  type Currency,
  DECIMALS,
  formatAmount,
  formatMicroUsd,
  isPriced,
  MICROS_PER_USD,
  pow10,
} from "@gateway/domain";
import type { LedgerExportRange } from "@gateway/ledger";
import { type PaymentRow, stateOf } from "./payment-row.js";
import { paymentTransactions } from "./payment-transactions.js";

/** The columns, in order: the CSV's header row. */
export const PAYMENT_EXPORT_COLUMNS = [
  "payment_id",
  "created_at",
  "updated_at",
  "status",
  "is_test",
  "amount",
  "currency",
  "usd_value",
  "fee",
  "net",
  "chain",
  "coin",
  "amount_received",
  "fee_in_coin",
  "net_in_coin",
  "refunded_in_coin",
  "deposit_address",
  "deposit_txids",
  "sweep_txid",
  "refund_txids",
  "description",
] as const;

export type PaymentExportRecord = Record<(typeof PAYMENT_EXPORT_COLUMNS)[number], string>;

/** What the export reads of a payment: its state holds the rest. */
export type PaymentExportRow = Pick<PaymentRow, "id" | "description" | "created_at" | "updated_at" | "state">;

/**
 * The range's payments, oldest first, a batch of rows at a time from a server-side cursor: one
 * batch in memory however many rows the range holds.
 */
export function paymentExportBatches(
  sql: Sql,
  range: LedgerExportRange,
  batchSize = 100,
): AsyncIterable<PaymentExportRow[]> {
  return sql<PaymentExportRow[]>`
    select id, description, created_at, updated_at, state from payments
    where merchant_id = ${range.merchantId} and mode = ${range.mode}
      and created_at >= ${range.from} and created_at < ${range.to}
    order by created_at, id`.cursor(batchSize);
}

/**
 * Fee and net count once a payment completed (the fee is charged then); `usd_value` is the value
 * booked on completion, else the value when created.
 */
export function toPaymentExportRecord(row: PaymentExportRow): PaymentExportRecord {
  const state = stateOf(row);
  const currency = state.currency as Currency;
  const coin = state.wallet?.coin;
  const booked = state.status === "completed";
  const txs = paymentTransactions(state);
  const ids = (kind: string) =>
    txs
      .filter((t) => t.kind === kind)
      .map((t) => t.txid)
      .join(" ");
  const created = isPriced(currency)
    ? state.usdRateAtCreation == null
      ? null
      : (state.amount * state.usdRateAtCreation) / pow10(DECIMALS[currency])
    : (state.amount * MICROS_PER_USD) / pow10(DECIMALS[currency]);
  const usd = state.credit?.usdValue ?? created;
  const refunded = state.refunds.reduce((sum, r) => sum + r.amount, 0n);
  return {
    payment_id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    status: state.status,
    is_test: String(state.mode === "test"),
    amount: formatAmount(state.amount, currency),
    currency,
    usd_value: usd == null ? "" : formatMicroUsd(usd),
    fee: booked ? formatAmount(state.fee, currency) : "",
    net: booked ? formatAmount(state.amount - state.fee, currency) : "",
    chain: state.wallet?.chain ?? "",
    coin: coin ?? "",
    amount_received: coin ? formatAmount(state.amountReceived, coin) : "",
    fee_in_coin: state.credit ? formatAmount(state.credit.fee, state.credit.coin) : "",
    net_in_coin: state.credit ? formatAmount(state.credit.net, state.credit.coin) : "",
    refunded_in_coin: coin && refunded > 0n ? formatAmount(refunded, coin) : "",
    deposit_address: state.wallet?.address ?? "",
    deposit_txids: ids("deposit"),
    sweep_txid: ids("sweep"),
    refund_txids: ids("refund"),
    description: row.description ?? "",
  };
}
