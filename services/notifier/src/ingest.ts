import type { BusMessage } from "@gateway/bus";
import { type EventMessage, isEventMessage } from "@gateway/contracts";
import { newId, type Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import type { ClaimedDelivery } from "./delivery-rows.js";
import type { DeliveryClaim, DeliveryWorker } from "./delivery-worker.js";

/** The part of the delivery worker that takes new deliveries straight from the ingest. */
export type DeliveryHandOff = Pick<DeliveryWorker, "claim" | "reserve" | "unreserve" | "startReserved">;

export interface EventIngestOptions {
  sql: Sql;
  log: Logger;
  retryWindowMs: number;
  /** Attempts new deliveries at once; without it they are inserted due now, for a worker's claim. */
  worker?: DeliveryHandOff;
}

interface EventDelivery {
  id: string;
  endpoint: Endpoint;
  event_id: string;
  event_type: string;
  payload: string;
}

interface Endpoint {
  id: string;
  merchant_id: string;
  mode: Mode;
  events: string[] | null;
  url: string;
  secret_sealed: Buffer;
}

interface WrittenDelivery {
  id: string;
  retry_until: Date;
  created_at: Date;
  inserted: boolean;
}

/**
 * One pending delivery per matching endpoint, keyed by (event, endpoint), so a redelivered event
 * adds nothing and a crash loses nothing; a failing batch is retried message by message so one bad
 * message holds back no other.
 */
export function createEventIngest({ sql, log, retryWindowMs, worker }: EventIngestOptions) {
  async function ingestBatch(messages: BusMessage<unknown>[]): Promise<number> {
    const events = onePerEvent(messages, log);
    if (events.length === 0) return 0;
    const merchants = [...new Set(events.map((e) => e.merchant_id))];
    // Read at the statement's side, as a read inside a READ COMMITTED transaction would be: an
    // endpoint added a moment later serves the events after it.
    const endpoints = await sql<Endpoint[]>`
      select id, merchant_id, mode, events, url, secret_sealed from webhook_endpoints
      where merchant_id = any(${merchants}::text[]) and deleted_at is null`;
    const rows = events.flatMap((e) => deliveriesOf(e, endpoints));
    if (rows.length === 0) return 0;
    const reserved = worker?.reserve(rows.map((r) => r.endpoint.id)) ?? rows.map(() => false);
    let written: WrittenDelivery[];
    try {
      written = await writeDeliveries(sql, rows, reserved, retryWindowMs, worker?.claim);
    } catch (err) {
      worker?.unreserve(rows.filter((_, i) => reserved[i]).map((r) => r.endpoint.id));
      throw err;
    }
    const inserted = new Map(written.filter((w) => w.inserted).map((w) => [w.id, w]));
    if (worker) handOver(worker, rows, reserved, inserted);
    return inserted.size;
  }

  return {
    ingestBatch,
    /**
     * For a consumer that hands over one message at a time: messages arriving while a batch is
     * being written join the next one, so batches grow with the load and stay at one under none.
     */
    batcher: () => createIngestBatcher(ingestBatch),
  };
}

/** One message per event id: an upsert may not touch a row twice in one statement. */
function onePerEvent(messages: BusMessage<unknown>[], log: Logger): EventMessage[] {
  const byEvent = new Map<string, EventMessage>();
  for (const message of messages) {
    if (!isEventMessage(message.data)) {
      // Retrying cannot fix a malformed message; it is acked and made visible.
      log.error({ messageId: message.id, subject: message.subject }, "malformed event message dropped");
      continue;
    }
    if (!byEvent.has(message.data.event.id)) byEvent.set(message.data.event.id, message.data);
  }
  return [...byEvent.values()];
}

/** A delivery of the event to each endpoint of its merchant and mode subscribed to its type. */
function deliveriesOf({ merchant_id, mode, event }: EventMessage, endpoints: Endpoint[]): EventDelivery[] {
  // A test event is for the one endpoint it was sent to; the API writes that delivery itself.
  if (event.type === "webhook.test") return [];
  const matching = endpoints.filter(
    (e) =>
      e.merchant_id === merchant_id &&
      e.mode === mode &&
      (e.events === null || e.events.includes(event.type)),
  );
  if (matching.length === 0) return [];
  const payload = JSON.stringify(event);
  return matching.map((e) => ({
    id: newId("whd"),
    endpoint: e,
    event_id: event.id,
    event_type: event.type,
    payload,
  }));
}

/**
 * Inserts the deliveries, those reserved already claimed under `claim` (due again only once its
 * lease runs out); returns the rows inserted, and those only given their full window.
 */
async function writeDeliveries(
  sql: Sql,
  rows: EventDelivery[],
  reserved: boolean[],
  retryWindowMs: number,
  claim: DeliveryClaim | undefined,
): Promise<WrittenDelivery[]> {
  // Arrays, one statement text per query (docs/operations.md). retry_until = created_at + window
  // exactly (one now() per statement), so a replay of an ingested event finds nothing to change.
  return sql<WrittenDelivery[]>`
    insert into webhook_deliveries
      (id, endpoint_id, event_id, event_type, payload, status, retry_until, next_attempt_at, claim_token)
    select d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, 'pending',
      now() + ${retryWindowMs} * interval '1 millisecond',
      case when d.token is null then now() else now() + ${claim?.leaseMs ?? 0} * interval '1 millisecond' end,
      d.token
    from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.endpoint.id)}::text[],
                ${rows.map((r) => r.event_id)}::text[], ${rows.map((r) => r.event_type)}::text[],
                ${rows.map((r) => r.payload)}::text[],
                ${reserved.map((r) => (r ? claim?.token : null)) as string[]}::text[])
      as d(id, endpoint_id, event_id, event_type, payload, token)
    on conflict (event_id, endpoint_id) do update
      -- A manual redelivery raced ahead with a one-attempt window; the event gets its full one.
      set retry_until = webhook_deliveries.created_at + ${retryWindowMs} * interval '1 millisecond',
        updated_at = now()
      where webhook_deliveries.retry_until
        < webhook_deliveries.created_at + ${retryWindowMs} * interval '1 millisecond'
    returning id, retry_until, created_at, (xmax = 0) as inserted`;
}

/** Starts the reserved deliveries that were inserted; gives back the slots of the others. */
function handOver(
  worker: DeliveryHandOff,
  rows: EventDelivery[],
  reserved: boolean[],
  inserted: Map<string, WrittenDelivery>,
): void {
  const started: ClaimedDelivery[] = [];
  const unused: string[] = [];
  rows.forEach((row, i) => {
    if (!reserved[i]) return;
    const written = inserted.get(row.id);
    if (written) started.push(claimedDelivery(row, written));
    else unused.push(row.endpoint.id);
  });
  worker.unreserve(unused);
  worker.startReserved(started);
}

function claimedDelivery({ endpoint, ...row }: EventDelivery, written: WrittenDelivery): ClaimedDelivery {
  return {
    ...row,
    endpoint_id: endpoint.id,
    attempts: 0,
    retry_until: written.retry_until,
    previous_next_attempt_at: written.created_at,
    url: endpoint.url,
    mode: endpoint.mode,
    secret_sealed: endpoint.secret_sealed,
    deleted: false,
  };
}

/** Hands messages to `ingestBatch` as they come; the returned promise settles with its message. */
function createIngestBatcher(ingestBatch: (messages: BusMessage<unknown>[]) => Promise<number>) {
  let pending: { message: BusMessage<unknown>; done: (err?: unknown) => void }[] = [];
  let writing = false;
  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await ingestBatch(batch.map((p) => p.message));
        for (const p of batch) p.done();
      } catch (batchError) {
        if (batch.length === 1) {
          batch[0]!.done(batchError);
          continue;
        }
        for (const p of batch) {
          await ingestBatch([p.message]).then(
            () => p.done(),
            (err) => p.done(err),
          );
        }
      }
    }
    writing = false;
  }
  return (message: BusMessage<unknown>) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ message, done: (err) => (err === undefined ? resolve() : reject(err)) });
      if (!writing) void drain();
    });
}
