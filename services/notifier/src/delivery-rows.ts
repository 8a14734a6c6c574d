// The delivery worker's statements on webhook_deliveries: claim due rows under a lease, give back
// or cancel the ones it will not attempt, and record attempts' outcomes a batch at a time.
import type { Sql, TransactionSql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { PostResult } from "./http-post.js";
import { nextAttemptAt } from "./retry-schedule.js";

/** A due delivery held under this worker's claim token, with what its attempt needs of the endpoint. */
export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempts: number;
  retry_until: Date;
  previous_next_attempt_at: Date;
  url: string;
  mode: Mode;
  secret_sealed: Buffer;
  deleted: boolean;
}

export interface DeliveryOutcome {
  id: string;
  token: string;
  attempt: number;
  startedAt: Date;
  result: PostResult;
  retryUntil: Date;
}

export const isSuccess = (code: number | null) => code !== null && code >= 200 && code < 300;

export interface ClaimRequest {
  token: string;
  leaseMs: number;
  limit: number;
  /** Endpoints already at their share of attempts: their deliveries stay for later. */
  skipEndpoints: string[];
}

/** Pushes the claimed rows' next_attempt_at ahead by the lease, so no other worker takes them meanwhile. */
export async function claimDueDeliveries(sql: Sql, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const { token, leaseMs, limit, skipEndpoints } = request;
  return sql<ClaimedDelivery[]>`
    update webhook_deliveries d
    set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', claim_token = ${token},
        updated_at = now()
    from (
      select id, next_attempt_at from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
        and endpoint_id <> all(${skipEndpoints}::text[])
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ) due, webhook_endpoints e
    where d.id = due.id and e.id = d.endpoint_id
    returning d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.attempts, d.retry_until,
      due.next_attempt_at as previous_next_attempt_at, e.url, e.mode, e.secret_sealed,
      e.deleted_at is not null as deleted`;
}

/** Gives back deliveries beyond an endpoint's share, due as before, for whoever has room. */
export async function releaseDeliveries(sql: Sql, token: string, rows: ClaimedDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    update webhook_deliveries d set next_attempt_at = v.at, claim_token = null
    from (select unnest(${rows.map((r) => r.id)}::text[]) as id,
                 unnest(${rows.map((r) => r.previous_next_attempt_at.toISOString())}::timestamptz[]) as at) v
    where d.id = v.id and d.claim_token = ${token}`;
}

/** Deliveries to a deleted endpoint end here, unattempted. */
export async function cancelDeliveries(sql: Sql, token: string, rows: ClaimedDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`update webhook_deliveries set status = 'canceled', claim_token = null, updated_at = now()
    where id = any(${rows.map((r) => r.id)}::text[]) and claim_token = ${token}`;
}

/** Each attempt logged, and each delivery set to its new status and next due time, in one statement. */
export async function recordOutcomes(
  sql: Sql,
  batch: DeliveryOutcome[],
  retrySchedule: readonly number[],
): Promise<void> {
  const updates = deliveryUpdates(batch, new Date(), retrySchedule);
  // Planned for the rows at hand each time: a prepared statement's cached generic plan, made
  // while the table was small, would go on scanning the whole table as it grows.
  await sql.begin((tx) => [
    tx`set local plan_cache_mode = force_custom_plan`,
    writeOutcomes(tx, batch, updates),
  ]);
}

/**
 * The deliveries' update and the attempts' insert as one statement (a data-modifying WITH runs
 * whether or not its rows are read). Arrays and unnest: fourteen parameters for the whole batch.
 */
function writeOutcomes(tx: TransactionSql, batch: DeliveryOutcome[], rows: DeliveryUpdate[]) {
  return tx`
    with updated as (
      update webhook_deliveries d
      set status = v.status, attempts = v.attempt, next_attempt_at = v.next, last_attempt_at = v.started,
          last_status_code = v.code, claim_token = null, updated_at = now()
      from (select
        unnest(${rows.map((r) => r.id)}::text[]) as id,
        unnest(${rows.map((r) => r.token)}::text[]) as token,
        unnest(${rows.map((r) => r.status)}::text[]) as status,
        unnest(${rows.map((r) => r.attempt)}::int[]) as attempt,
        unnest(${rows.map((r) => r.next)}::timestamptz[]) as next,
        unnest(${rows.map((r) => r.started)}::timestamptz[]) as started,
        unnest(${rows.map((r) => r.code) as number[]}::int[]) as code
      ) v
      where d.id = v.id and d.claim_token = v.token)
    insert into webhook_delivery_attempts
      (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
    select * from unnest(
      ${batch.map((o) => o.id)}::text[],
      ${batch.map((o) => o.attempt)}::int[],
      ${batch.map((o) => o.startedAt.toISOString())}::timestamptz[],
      ${batch.map((o) => o.result.statusCode) as number[]}::int[],
      ${batch.map((o) => o.result.latencyMs)}::int[],
      ${batch.map((o) => o.result.responseExcerpt) as string[]}::text[],
      ${batch.map((o) => o.result.error) as string[]}::text[])`;
}

interface DeliveryUpdate {
  id: string;
  token: string;
  attempt: number;
  status: "succeeded" | "pending" | "failed";
  next: string;
  started: string;
  code: number | null;
}

/** Success ends a delivery; a failure is due again on the schedule, or fails once past its window. */
function deliveryUpdates(
  batch: DeliveryOutcome[],
  now: Date,
  retrySchedule: readonly number[],
): DeliveryUpdate[] {
  return batch.map((o) => {
    const ok = isSuccess(o.result.statusCode);
    const next = ok ? undefined : nextAttemptAt(o.attempt, now, o.retryUntil, retrySchedule);
    return {
      id: o.id,
      token: o.token,
      attempt: o.attempt,
      status: ok ? "succeeded" : next ? "pending" : "failed",
      next: (next ?? now).toISOString(),
      started: o.startedAt.toISOString(),
      code: o.result.statusCode,
    };
  });
}
