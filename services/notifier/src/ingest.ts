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

/**
 * Turns events into one pending delivery per matching endpoint (same merchant and mode, subscribed
 * to the type). This is `handleOnce` for a batch: the message ids are recorded as handled in the
 * transaction that inserts their deliveries, so a redelivered message adds nothing and a crash
 * before commit loses nothing. One transaction for many messages is what lets ingestion keep up
 * with delivery; a failing batch is retried message by message, so one bad message cannot hold
 * back the others. Resolves with the number of deliveries created.
 */
export function createEventIngest({ sql, log, consumer, retryWindowMs }: EventIngestOptions) {
  async function ingestBatch(messages: BusMessage<unknown>[]): Promise<number> {
    const byId = new Map<string, EventMessage>();
    for (const message of messages) {
      if (isEventMessage(message.data)) byId.set(message.id, message.data);
      // Retrying cannot fix a malformed message; it is acked and made visible.
      else log.error({ messageId: message.id, subject: message.subject }, "malformed event message dropped");
    }
    if (byId.size === 0) return 0;
    return sql.begin(async (tx) => {
      const fresh = await tx<{ message_id: string }[]>`
        insert into processed_messages (consumer, message_id)
        select ${consumer}, unnest(${[...byId.keys()]}::text[])
        on conflict do nothing returning message_id`;
      if (fresh.length === 0) return 0;
      // One event id once per batch, even if two messages carried it (the upsert below needs it).
      const seen = new Set<string>();
      const events = fresh
        .map((r) => byId.get(r.message_id)!)
        .filter((m) => !seen.has(m.event.id) && seen.add(m.event.id));
      const merchants = [...new Set(events.map((e) => e.merchant_id))];
      const endpoints = await tx<{ id: string; merchant_id: string; mode: Mode; events: string[] | null }[]>`
        select id, merchant_id, mode, events from webhook_endpoints
        where merchant_id = any(${merchants}::text[]) and deleted_at is null`;
      const retryUntil = new Date(Date.now() + retryWindowMs);
      const rows = events.flatMap(({ merchant_id, mode, event }) => {
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
          endpoint_id: e.id,
          event_id: event.id,
          event_type: event.type,
          payload,
        }));
      });
      let created = 0;
      for (let i = 0; i < rows.length; i += 1000) {
        const chunk = rows.slice(i, i + 1000);
        // Arrays, not a multi-row VALUES: one statement text for any batch size (docs/operations.md, "One statement text per query").
        const written = (await tx`
          insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
          select d.*, 'pending', ${retryUntil}::timestamptz
          from unnest(${chunk.map((r) => r.id)}::text[], ${chunk.map((r) => r.endpoint_id)}::text[],
                      ${chunk.map((r) => r.event_id)}::text[], ${chunk.map((r) => r.event_type)}::text[],
                      ${chunk.map((r) => r.payload)}::text[]) as d
          on conflict (event_id, endpoint_id) do update
            -- A manual redelivery raced ahead with a one-attempt window; the event gets its full one.
            set retry_until = greatest(webhook_deliveries.retry_until, excluded.retry_until)
          returning (xmax = 0) as inserted`) as unknown as { inserted: boolean }[];
        created += written.filter((w) => w.inserted).length;
      }
      return created;
    }) as Promise<number>;
  }

  return {
    ingestBatch,
    /**
     * For a consumer that hands over one message at a time: messages arriving while a batch is
     * being written join the next one, so batches grow with the load and stay at one under none.
     */
    batcher() {
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
    },
  };
}
