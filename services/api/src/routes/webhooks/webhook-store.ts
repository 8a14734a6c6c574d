import type { EventType, WebhookDelivery, WebhookTestEvent } from "@gateway/contracts";
import { newId, type Sql, type TransactionSql } from "@gateway/db";
import type { Mode } from "@gateway/domain";

/** Whose endpoints a caller may touch: an API key is bound to its mode, a dashboard session is not. */
export interface WebhookScope {
  merchantId: string;
  /** Undefined: both modes (dashboard). */
  mode: Mode | undefined;
}

export interface EndpointRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  url: string;
  description: string | null;
  /** Null: every event type. */
  events: EventType[] | null;
  created_at: Date;
}

/** A delivery row: the resource's fields, with the times as the driver reads them. */
export type DeliveryRow = Omit<
  WebhookDelivery,
  "next_attempt_at" | "created_at" | "last_attempt_at" | "attempt_log"
> & { next_attempt_at: Date; created_at: Date; last_attempt_at: Date | null };

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** More than this many live endpoints per merchant and mode multiplies every event for little use. */
export const MAX_ENDPOINTS_PER_MODE = 16;

const ENDPOINT_COLUMNS = "id, merchant_id, mode, url, description, events, created_at";
const DELIVERY_COLUMNS =
  "id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, last_attempt_at, last_status_code";

export async function insertEndpoint(
  sql: Sql,
  row: {
    id: string;
    merchantId: string;
    mode: Mode;
    url: string;
    description: string | null;
    events: string[] | null;
    sealed: Buffer;
  },
  /** Runs in the same transaction when this call made the endpoint (the audit entry of it). */
  onCreated?: (tx: TransactionSql) => Promise<void>,
): Promise<{ endpoint: EndpointRow; sealed: Buffer } | undefined> {
  return sql.begin(async (tx) => {
    // Serialises concurrent registrations of one merchant and mode, so the cap holds.
    await tx`select pg_advisory_xact_lock(hashtext(${`webhooks:${row.merchantId}:${row.mode}`}))`;
    // The id is fixed before the first attempt: an attempt cut off after its commit, or an
    // earlier request with the same Idempotency-Key, already made this endpoint.
    const [earlier] = await tx<(EndpointRow & { secret_sealed: Buffer })[]>`
      select ${tx.unsafe(ENDPOINT_COLUMNS)}, secret_sealed from webhook_endpoints
      where id = ${row.id} and merchant_id = ${row.merchantId}`;
    if (earlier) {
      const { secret_sealed, ...endpoint } = earlier;
      return { endpoint, sealed: secret_sealed };
    }
    const [count] = await tx<{ n: bigint }[]>`select count(*) as n from webhook_endpoints
      where merchant_id = ${row.merchantId} and mode = ${row.mode} and deleted_at is null`;
    if ((count?.n ?? 0n) >= BigInt(MAX_ENDPOINTS_PER_MODE)) return undefined;
    const [inserted] = await tx<EndpointRow[]>`
      insert into webhook_endpoints (id, merchant_id, mode, url, description, events, secret_sealed)
      values (${row.id}, ${row.merchantId}, ${row.mode}, ${row.url}, ${row.description}, ${row.events}, ${row.sealed})
      returning ${tx.unsafe(ENDPOINT_COLUMNS)}`;
    await onCreated?.(tx);
    return { endpoint: inserted!, sealed: row.sealed };
  }) as Promise<{ endpoint: EndpointRow; sealed: Buffer } | undefined>;
}

export async function listEndpoints(sql: Sql, scope: WebhookScope): Promise<EndpointRow[]> {
  return sql<EndpointRow[]>`
    select ${sql.unsafe(ENDPOINT_COLUMNS)} from webhook_endpoints
    where merchant_id = ${scope.merchantId} and deleted_at is null
      ${scope.mode ? sql`and mode = ${scope.mode}` : sql``}
    order by created_at desc, id desc`;
}

export async function findEndpoint(
  sql: Sql,
  scope: WebhookScope,
  id: string,
): Promise<EndpointRow | undefined> {
  const [row] = await sql<EndpointRow[]>`
    select ${sql.unsafe(ENDPOINT_COLUMNS)} from webhook_endpoints
    where id = ${id} and merchant_id = ${scope.merchantId} and deleted_at is null
      ${scope.mode ? sql`and mode = ${scope.mode}` : sql``}`;
  return row;
}

/** Soft delete: the delivery log stays; deliveries still waiting are canceled with it. */
export async function deleteEndpoint(
  sql: Sql,
  scope: WebhookScope,
  id: string,
  /** Runs in the same transaction when the endpoint was deleted (the audit entry of it). */
  onDeleted?: (tx: TransactionSql) => Promise<void>,
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const deleted = await tx`
      update webhook_endpoints set deleted_at = now()
      where id = ${id} and merchant_id = ${scope.merchantId} and deleted_at is null
        ${scope.mode ? tx`and mode = ${scope.mode}` : tx``}
      returning 1`;
    if (deleted.length === 0) return false;
    await tx`update webhook_deliveries set status = 'canceled', updated_at = now()
      where endpoint_id = ${id} and status = 'pending' and claim_token is null`;
    await onDeleted?.(tx);
    return true;
  }) as Promise<boolean>;
}

export async function listDeliveries(
  sql: Sql,
  endpointId: string,
  { limit, startingAfter, eventId }: { limit: number; startingAfter?: string; eventId?: string },
): Promise<{ rows: DeliveryRow[]; attempts: AttemptRow[]; hasMore: boolean } | undefined> {
  let cursor: { created_at: Date; id: string } | undefined;
  if (startingAfter !== undefined) {
    [cursor] = await sql<{ created_at: Date; id: string }[]>`
      select created_at, id from webhook_deliveries where id = ${startingAfter} and endpoint_id = ${endpointId}`;
    if (!cursor) return undefined;
  }
  const rows = await sql<DeliveryRow[]>`
    select ${sql.unsafe(DELIVERY_COLUMNS)} from webhook_deliveries
    where endpoint_id = ${endpointId}
      ${eventId === undefined ? sql`` : sql`and event_id = ${eventId}`}
      ${cursor ? sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})` : sql``}
    order by created_at desc, id desc
    limit ${limit + 1}`;
  const page = rows.slice(0, limit);
  return { rows: page, attempts: await attemptsOf(sql, page), hasMore: rows.length > limit };
}

/**
 * One more attempt now, with the same event id and body. A delivery inside its schedule is moved
 * forward (unless an attempt is in flight right now); a finished one gets a single attempt
 * (retry_until = now, so a failure ends it as failed again); an event this endpoint never got is
 * delivered from the event log. Undefined: no such event for this endpoint's merchant and mode.
 */
export async function redeliver(
  sql: Sql,
  endpoint: EndpointRow,
  eventId: string,
): Promise<DeliveryRow | undefined> {
  return sql.begin(async (tx) => {
    const [existing] = await tx<{ id: string; status: string; claim_token: string | null }[]>`
      select id, status, claim_token from webhook_deliveries
      where event_id = ${eventId} and endpoint_id = ${endpoint.id} for update`;
    let id: string;
    if (existing) {
      id = existing.id;
      if (existing.status === "pending") {
        if (existing.claim_token === null)
          await tx`update webhook_deliveries set next_attempt_at = now(), updated_at = now() where id = ${id}`;
      } else {
        await tx`update webhook_deliveries set status = 'pending', next_attempt_at = now(), retry_until = now(),
          updated_at = now() where id = ${id}`;
      }
    } else {
      const [event] = await tx<{ id: string; type: string; mode: Mode; data: unknown; created_at: Date }[]>`
        select id, type, mode, data, created_at from events
        where id = ${eventId} and merchant_id = ${endpoint.merchant_id} and mode = ${endpoint.mode}`;
      if (!event) return undefined;
      // The same body the notifier sends for a fresh event (see the event contract in docs/webhooks.md).
      const payload = JSON.stringify({
        id: event.id,
        type: event.type,
        created_at: event.created_at.toISOString(),
        is_test: event.mode === "test",
        data: event.data,
      });
      const [inserted] = await tx<{ id: string }[]>`
        insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
        values (${newId("whd")}, ${endpoint.id}, ${event.id}, ${event.type}, ${payload}, 'pending', now())
        on conflict (event_id, endpoint_id) do nothing returning id`;
      if (inserted) {
        id = inserted.id;
      } else {
        // The notifier created it meanwhile (the event was still being ingested); it is due now.
        const [created] = await tx<{ id: string }[]>`
          select id from webhook_deliveries where event_id = ${eventId} and endpoint_id = ${endpoint.id}`;
        id = created!.id;
      }
    }
    await tx`select pg_notify('webhook_deliveries', '')`;
    const [row] = await tx<
      DeliveryRow[]
    >`select ${tx.unsafe(DELIVERY_COLUMNS)} from webhook_deliveries where id = ${id}`;
    return row;
  }) as Promise<DeliveryRow | undefined>;
}

/**
 * A `webhook.test` event for one endpoint: its event row (so it reads like any event and can be
 * redelivered) and a delivery due now with one attempt. No outbox message: the notifier fans
 * outbox events out to every subscribed endpoint, and this one is for this endpoint only.
 */
export async function sendTestEvent(sql: Sql, endpoint: EndpointRow): Promise<DeliveryRow> {
  return sql.begin(async (tx) => {
    const id = newId("evt");
    const createdAt = new Date();
    const event: WebhookTestEvent = {
      id,
      type: "webhook.test",
      created_at: createdAt.toISOString(),
      is_test: endpoint.mode === "test",
      data: { webhook_endpoint: { id: endpoint.id, url: endpoint.url } },
    };
    await tx`insert into events (id, merchant_id, mode, type, data, created_at)
      values (${id}, ${endpoint.merchant_id}, ${endpoint.mode}, ${event.type},
              ${tx.json(event.data as never)}, ${createdAt})`;
    const [row] = await tx<DeliveryRow[]>`
      insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
      values (${newId("whd")}, ${endpoint.id}, ${id}, ${event.type}, ${JSON.stringify(event)}, 'pending', now())
      returning ${tx.unsafe(DELIVERY_COLUMNS)}`;
    return row!;
  }) as Promise<DeliveryRow>;
}

/** Every delivery of one payment's events, over all the merchant's endpoints (dashboard detail page). */
export async function listPaymentDeliveries(
  sql: Sql,
  merchantId: string,
  paymentId: string,
): Promise<{ rows: DeliveryRow[]; attempts: AttemptRow[] }> {
  const rows = await sql<DeliveryRow[]>`
    select ${sql.unsafe(DELIVERY_COLUMNS.replace(/(\w+)/g, "d.$1"))}
    from events ev
    join webhook_deliveries d on d.event_id = ev.id
    join webhook_endpoints e on e.id = d.endpoint_id and e.merchant_id = ${merchantId}
    where ev.payment_id = ${paymentId} and ev.merchant_id = ${merchantId}
    order by d.created_at desc, d.id desc
    limit 200`;
  return { rows, attempts: await attemptsOf(sql, rows) };
}

/** The newest deliveries that gave up (every attempt failed), over the merchant's endpoints of one mode. */
export async function recentFailedDeliveries(
  sql: Sql,
  scope: { merchantId: string; mode: Mode },
  limit: number,
): Promise<(DeliveryRow & { url: string })[]> {
  return sql<(DeliveryRow & { url: string })[]>`
    select ${sql.unsafe(DELIVERY_COLUMNS.replace(/(\w+)/g, "d.$1"))}, e.url
    from webhook_endpoints e
    join webhook_deliveries d on d.endpoint_id = e.id
    where e.merchant_id = ${scope.merchantId} and e.mode = ${scope.mode} and d.status = 'failed'
    order by d.created_at desc, d.id desc limit ${limit}`;
}

/** Every attempt of these deliveries, in order per delivery. */
async function attemptsOf(sql: Sql, deliveries: { id: string }[]): Promise<AttemptRow[]> {
  if (deliveries.length === 0) return [];
  return sql<AttemptRow[]>`
    select delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error
    from webhook_delivery_attempts where delivery_id = any(${deliveries.map((d) => d.id)}::text[])
    order by delivery_id, attempt, id`;
}
