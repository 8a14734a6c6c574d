import type { Sql, TransactionSql } from "./client.js";

export interface OutboxMessage {
  /** Becomes the JetStream message id: JetStream drops a second publish with the same id. */
  id: string;
  subject: string;
  payload: unknown;
}

/** Writes messages to the outbox inside the caller's transaction, so they exist iff the change does. */
export async function enqueueOutbox(tx: TransactionSql | Sql, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await tx`insert into outbox ${tx(
    messages.map((m) => ({ id: m.id, subject: m.subject, payload: tx.json(m.payload as never) })),
    "id",
    "subject",
    "payload",
  )} on conflict (id) do nothing`;
}
