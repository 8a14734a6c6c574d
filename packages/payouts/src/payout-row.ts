// The `payouts` table: its row, the state the actor decides on, the resource merchants see, and
// the reads of it.
import type { Chain, Payout, PayoutCoin, PayoutKind, PayoutStatus } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";
import { formatAmount, type Mode, type PayoutWork } from "@gateway/domain";
import type { PayoutState } from "./payout.js";

/** The API's signed approval of a manual live payout; expires_at_ms in Unix ms as a string. */
export type StoredPayoutApproval = { key_id: string; signature: string; expires_at_ms?: string };

export interface PayoutRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  chain: Chain;
  coin: PayoutCoin;
  amount: bigint;
  network_fee: bigint;
  destination: string;
  kind: PayoutKind;
  status: PayoutStatus;
  simulated: boolean;
  txid: string | null;
  failure_reason: string | null;
  approval: StoredPayoutApproval | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

export function stateOf(row: PayoutRow): PayoutState {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    chain: row.chain,
    coin: row.coin,
    amount: row.amount,
    networkFee: row.network_fee,
    destination: row.destination,
    kind: row.kind,
    status: row.status,
    simulated: row.simulated,
    txid: row.txid,
    failureReason: row.failure_reason,
  };
}

/** A new payout's row; the approval is the route's, outside the actor's state. */
export async function insertPayout(
  tx: TransactionSql,
  state: PayoutState,
  approval: StoredPayoutApproval | null,
): Promise<PayoutRow> {
  const [row] = await tx<PayoutRow[]>`
    insert into payouts (id, merchant_id, mode, chain, coin, amount, network_fee, destination, kind, status, simulated, approval)
    values (${state.id}, ${state.merchantId}, ${state.mode}, ${state.chain}, ${state.coin}, ${state.amount},
      ${state.networkFee}, ${state.destination}, ${state.kind}, ${state.status}, ${state.simulated},
      ${approval ? tx.json(approval) : null})
    returning *`;
  return row!;
}

/** Writes a decided state; `completed_at` is the transaction's time of completion. */
export async function updatePayout(tx: TransactionSql, state: PayoutState): Promise<PayoutRow> {
  const [row] = await tx<PayoutRow[]>`
    update payouts set status = ${state.status}, updated_at = now(), txid = ${state.txid},
      failure_reason = ${state.failureReason},
      completed_at = ${state.status === "completed" ? tx`now()` : null}
    where id = ${state.id} returning *`;
  return row!;
}

/**
 * What the chain's payout is asked to send: `payout:<id>`, the amount net of the network fee, and
 * the API's approval as the signer reads it.
 */
export function payoutWorkOf(row: PayoutRow): PayoutWork {
  return {
    intentId: `payout:${row.id}`,
    payoutId: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
    chain: row.chain,
    coin: row.coin,
    amount: row.amount - row.network_fee,
    destination: row.destination,
    approval: row.approval
      ? {
          keyId: row.approval.key_id,
          signature: new Uint8Array(Buffer.from(row.approval.signature, "base64")),
          ...(row.approval.expires_at_ms ? { expiresAtMs: BigInt(row.approval.expires_at_ms) } : {}),
        }
      : null,
  };
}

/** The payout as merchants see it (GET /payouts, payout.* events). Amounts are decimal strings. */
export function toPayoutResource(row: PayoutRow): Payout {
  return {
    id: row.id,
    object: "payout" as const,
    status: row.status,
    amount: formatAmount(row.amount, row.coin),
    network_fee: formatAmount(row.network_fee, row.coin),
    net_amount: formatAmount(row.amount - row.network_fee, row.coin),
    coin: row.coin,
    chain: row.chain,
    destination: row.destination,
    transaction_hash: row.txid,
    kind: row.kind,
    mode: row.mode,
    is_test: row.mode === "test",
    simulated: row.simulated,
    failure_reason: row.failure_reason,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}
export type PayoutResource = Payout;

/** One payout; with `merchantId`, only if it is that merchant's (anyone else's does not exist). */
export async function findPayout(
  sql: Sql | TransactionSql,
  query: { id: string; merchantId?: string },
): Promise<PayoutRow | undefined> {
  const [row] = await sql<PayoutRow[]>`
    select * from payouts where id = ${query.id}
    ${query.merchantId === undefined ? sql`` : sql`and merchant_id = ${query.merchantId}`}`;
  return row;
}

/** The chain a payout is on, which picks the consumer that executes it. */
export async function payoutChain(sql: Sql, id: string): Promise<Chain | undefined> {
  return (await sql<{ chain: Chain }[]>`select chain from payouts where id = ${id}`)[0]?.chain;
}

export interface ListPayoutsQuery {
  merchantId: string;
  mode: Mode;
  limit: number;
  /** Cursor: the id of the last payout of the previous page. */
  startingAfter?: string | undefined;
}

/**
 * Newest first, with a cursor on (created_at, id) so pages never skip or repeat a payout.
 * Undefined when `startingAfter` names no payout of the merchant's in that mode.
 */
export async function listPayouts(
  sql: Sql,
  q: ListPayoutsQuery,
): Promise<{ rows: PayoutRow[]; hasMore: boolean } | undefined> {
  let cursor: { created_at: Date; id: string } | undefined;
  if (q.startingAfter !== undefined) {
    [cursor] = await sql<{ created_at: Date; id: string }[]>`
      select created_at, id from payouts
      where id = ${q.startingAfter} and merchant_id = ${q.merchantId} and mode = ${q.mode}`;
    if (!cursor) return undefined;
  }
  const rows = await sql<PayoutRow[]>`
    select * from payouts where merchant_id = ${q.merchantId} and mode = ${q.mode}
    ${cursor ? sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})` : sql``}
    order by created_at desc, id desc limit ${q.limit + 1}`;
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/** The newest payouts that failed (their amount went back to the balance), for the dashboard's home. */
export async function recentFailedPayouts(
  sql: Sql,
  owner: { merchantId: string; mode: Mode },
  limit: number,
): Promise<PayoutRow[]> {
  return sql<PayoutRow[]>`
    select * from payouts
    where merchant_id = ${owner.merchantId} and mode = ${owner.mode} and status = 'failed'
    order by created_at desc, id desc limit ${limit}`;
}
