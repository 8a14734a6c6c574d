// The reads of the dashboard's home page and its search, over one merchant's payments of one mode.
import type { Mode, PaymentStatus } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import { isUuid, type PaymentRow } from "./payment-row.js";

export interface Owner {
  merchantId: string;
  mode: Mode;
}

export interface DayVolume {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  completed: number;
  /** Micro-USD booked by the day's completed payments. */
  usdMicros: bigint;
}

/** Completed payments per UTC day of creation since `since`, with the USD value their credits booked. */
export async function volumeByDay(sql: Sql, owner: Owner, since: Date): Promise<DayVolume[]> {
  const rows = await sql<{ day: string; completed: bigint; usd: bigint | null }[]>`
    select to_char(date_trunc('day', p.created_at at time zone 'UTC'), 'YYYY-MM-DD') as day,
           count(*)::bigint as completed, sum(t.usd_value_micros)::bigint as usd
    from payments p
    left join ledger_transfers t on t.payment_id = p.id and t.kind = 'payment_credited' and t.linked_to is null
    where p.merchant_id = ${owner.merchantId} and p.mode = ${owner.mode} and p.status = 'completed'
      and p.created_at >= ${since}
    group by 1 order by 1`;
  return rows.map((r) => ({ day: r.day, completed: Number(r.completed), usdMicros: r.usd ?? 0n }));
}

/** How many payments created since `since` are in each status (absent: none). */
export async function countByStatus(
  sql: Sql,
  owner: Owner,
  since: Date,
): Promise<Partial<Record<PaymentStatus, number>>> {
  const rows = await sql<{ status: PaymentStatus; n: bigint }[]>`
    select status, count(*)::bigint as n from payments
    where merchant_id = ${owner.merchantId} and mode = ${owner.mode} and created_at >= ${since}
    group by status`;
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** The newest payments settlement could not complete: an operator looks, the merchant should know. */
export async function failedPayments(sql: Sql, owner: Owner, limit: number): Promise<PaymentRow[]> {
  return sql<PaymentRow[]>`
    select * from payments
    where merchant_id = ${owner.merchantId} and mode = ${owner.mode} and status = 'failed'
    order by created_at desc, id desc limit ${limit}`;
}

/**
 * Payments found by their id, a deposit address or a transaction id (a deposit's signature or
 * digest, the sweep's, a refund's), newest first.
 */
export async function searchPayments(
  sql: Sql,
  owner: Owner,
  q: string,
  limit: number,
): Promise<PaymentRow[]> {
  if (isUuid(q)) {
    return sql<PaymentRow[]>`
      select * from payments where id = ${q} and merchant_id = ${owner.merchantId} and mode = ${owner.mode}`;
  }
  return sql<PaymentRow[]>`
    select p.* from payments p
    where p.merchant_id = ${owner.merchantId} and p.mode = ${owner.mode}
      and (p.id in (select w.payment_id from deposit_wallets w where w.address = ${q} and w.mode = ${owner.mode})
        or p.state->>'sweepTxid' = ${q}
        or exists (select 1 from jsonb_array_elements(p.state->'transfers') t
                   where split_part(t->>'transferId', ':', 2) = ${q})
        or exists (select 1 from jsonb_array_elements(p.state->'refunds') r where r->>'txid' = ${q}))
    order by p.created_at desc, p.id desc limit ${limit}`;
}
