import type { BusMessage } from "@gateway/bus";
import { type EventMessage, isEventMessage } from "@gateway/contracts";
import { newId, type Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";

export interface EventIngestOptions {
  sql: Sql;
  log: Logger;
  /** Name under which handled message ids are recorded (processed_messages.consumer). */
  consumer: string;
  retryWindowMs: number;
}

interface EventDelivery {
  id: string;
  message_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
}

interface Endpoint {
  id: string;
  merchant_id: string;
  mode: Mode;
  events: string[] | null;
}

/**
 * One pending delivery per matching endpoint, written in the statement that records the message
 * ids as handled, so a redelivery adds nothing and a crash loses nothing; a failing batch is
 * retried message by message so one bad message holds back no other.
 */
export function createEventIngest({ sql, log, consumer, retryWindowMs }: EventIngestOptions) {
  async function ingestBatch(messages: BusMessage<unknown>[]): Promise<number> {
    const { events, messageIds } = firstMessagePerEvent(messages, log);
    if (messageIds.length === 0) return 0;
    const merchants = [...new Set(events.map((e) => e.data.merchant_id))];
    // Read at the statement's side, as a read inside a READ COMMITTED transaction would be: an
    // endpoint added a moment later serves the events after it.
    const endpoints = await sql<Endpoint[]>`
      select id, merchant_id, mode, events from webhook_endpoints
      where merchant_id = any(${merchants}::text[]) and deleted_at is null`;
    const rows = events.flatMap((e) => deliveriesOf(e, endpoints));
    return writeDeliveries(sql, consumer, messageIds, rows, new Date(Date.now() + retryWindowMs));
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

/**
 * One message per event id, the first: two messages of one batch carrying an event make its
 * deliveries once (an upsert may not touch a row twice in one statement). If that first one was
 * handled before, so was the event: its deliveries were made in that message's statement.
 */
function firstMessagePerEvent(messages: BusMessage<unknown>[], log: Logger) {
  const byEvent = new Map<string, { messageId: string; data: EventMessage }>();
  const messageIds = new Set<string>();
  for (const message of messages) {
    if (!isEventMessage(message.data)) {
      // Retrying cannot fix a malformed message; it is acked and made visible.
      log.error({ messageId: message.id, subject: message.subject }, "malformed event message dropped");
      continue;
    }
    messageIds.add(message.id);
    if (!byEvent.has(message.data.event.id))
      byEvent.set(message.data.event.id, { messageId: message.id, data: message.data });
  }
  return { events: [...byEvent.values()], messageIds: [...messageIds] };
}

/** A delivery of the event to each endpoint of its merchant and mode subscribed to its type. */
function deliveriesOf(
  { messageId, data: { merchant_id, mode, event } }: { messageId: string; data: EventMessage },
  endpoints: Endpoint[],
): EventDelivery[] {
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
    message_id: messageId,
    endpoint_id: e.id,
    event_id: event.id,
    event_type: event.type,
    payload,
  }));
}

/** Resolves with the number of deliveries inserted (not those only given a longer window). */
async function writeDeliveries(
  sql: Sql,
  consumer: string,
  messageIds: string[],
  rows: EventDelivery[],
  retryUntil: Date,
): Promise<number> {
  // One statement, so atomic without a transaction: the message ids recorded as handled and the
  // deliveries of the messages not handled before, as arrays (docs/operations.md, "One statement
  // text per query").
  const written = (await sql`
    with fresh as (
      insert into processed_messages (consumer, message_id)
      select ${consumer}, unnest(${messageIds}::text[])
      on conflict do nothing returning message_id)
    insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
    select d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, 'pending', ${retryUntil}::timestamptz
    from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.message_id)}::text[],
                ${rows.map((r) => r.endpoint_id)}::text[], ${rows.map((r) => r.event_id)}::text[],
                ${rows.map((r) => r.event_type)}::text[], ${rows.map((r) => r.payload)}::text[])
      as d(id, message_id, endpoint_id, event_id, event_type, payload)
    where d.message_id in (select message_id from fresh)
    on conflict (event_id, endpoint_id) do update
      -- A manual redelivery raced ahead with a one-attempt window; the event gets its full one.
      set retry_until = greatest(webhook_deliveries.retry_until, excluded.retry_until)
    returning (xmax = 0) as inserted`) as unknown as { inserted: boolean }[];
  return written.filter((w) => w.inserted).length;
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
