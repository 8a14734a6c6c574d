import type { Fragment, Sql, TransactionSql } from "./client.js";
import { outboxWritten } from "./outbox-commits.js";

export interface OutboxMessage {
  /** Becomes the JetStream message id: JetStream drops a second publish with the same id. */
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * Writes messages to the outbox inside the caller's transaction, so they exist iff the change does;
 * this process's relay hears of them once that transaction commits (outbox-commits.ts).
 * `alongside`: the caller's insert of events, which the relay publishes too, run in the same
 * statement as a data-modifying `with`, one round trip for both.
 */
export async function enqueueOutbox(
  tx: TransactionSql | Sql,
  messages: OutboxMessage[],
  { alongside }: { alongside?: Fragment } = {},
): Promise<void> {
  if (messages.length === 0) {
    if (!alongside) return;
    await tx`${alongside}`;
    outboxWritten(tx);
    return;
  }
  // Arrays, not a multi-row VALUES: one statement text for any number of messages, so each
  // connection prepares it once (docs/operations.md, "One statement text per query"). The
  // payloads go as JSON text: postgres.js would read an object with a `type` field in a jsonb[]
  // as a typed parameter and send its `value` instead.
  await tx`${alongside ? tx`with alongside as (${alongside})` : tx``}
    insert into outbox (id, subject, payload)
    select m.id, m.subject, m.payload::jsonb
    from unnest(${messages.map((m) => m.id)}::text[],
                ${messages.map((m) => m.subject)}::text[],
                ${messages.map((m) => JSON.stringify(m.payload))}::text[]) as m(id, subject, payload)
    on conflict (id) do nothing`;
  outboxWritten(tx);
}
