import type { Sql, TransactionSql } from "./client.js";

/**
 * Runs `effect` inside one transaction together with the record that `consumer` handled
 * `messageId`. A message delivered again (JetStream redelivers whatever was not acked) finds the
 * record and changes nothing. Returns whether the effect ran.
 */
export async function handleOnce<T>(
  sql: Sql,
  consumer: string,
  messageId: string,
  effect: (tx: TransactionSql) => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  return sql.begin(async (tx) => {
    const inserted = await tx`insert into processed_messages (consumer, message_id)
      values (${consumer}, ${messageId}) on conflict do nothing returning 1`;
    if (inserted.length === 0) return { ran: false as const };
    return { ran: true as const, result: await effect(tx) };
  }) as Promise<{ ran: true; result: T } | { ran: false }>;
}
