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

/** Resolves once the message's effect committed (or it was found handled before); rejects when it failed. */
export type OnceBatcher<M> = (messageId: string, message: M) => Promise<{ ran: boolean }>;

interface Pending<M> {
  id: string;
  message: M;
  done: (outcome: { ran: boolean } | { error: unknown }) => void;
}

/** One transaction: the batch's records in one statement, then the new messages' effects. */
async function writeBatch<M>(
  sql: Sql,
  consumer: string,
  effect: (tx: TransactionSql, message: M) => Promise<unknown>,
  keyOf: (message: M) => string,
  batch: Pending<M>[],
): Promise<boolean[]> {
  return sql.begin(async (tx) => {
    const fresh = new Set(
      (
        await tx<{ message_id: string }[]>`
            insert into processed_messages (consumer, message_id)
            select ${consumer}, unnest(${batch.map((p) => p.id)}::text[])
            on conflict do nothing returning message_id`
      ).map((r) => r.message_id),
    );
    const ran: boolean[] = [];
    const byKey = new Map<string, M[]>();
    for (const p of batch) {
      // A message id twice in one batch runs once: the first takes it out of `fresh`.
      const first = fresh.delete(p.id);
      ran.push(first);
      if (!first) continue;
      const key = keyOf(p.message);
      const queue = byKey.get(key);
      if (queue) queue.push(p.message);
      else byKey.set(key, [p.message]);
    }
    // allSettled, not all: every statement has answered before the transaction ends, whichever failed.
    const outcomes = await Promise.allSettled(
      [...byKey.values()].map(async (messages) => {
        for (const message of messages) await effect(tx, message);
      }),
    );
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
    return ran;
  }) as Promise<boolean[]>;
}

/**
 * `handleOnce` for a consumer that hands over one message at a time: messages arriving while a
 * batch is being written join the next one, so batches grow with the load and stay at one under
 * none. A batch is one transaction: the records of all its message ids in one statement, then
 * the new messages' effects. Messages with the same `keyOf` (one actor's) run one after another
 * in arrival order, so they keep their order; those of different keys run side by side, their
 * statements pipelined on the transaction's connection. A failing batch is retried message by
 * message, so one bad message cannot hold back the others and its failure reaches only its own
 * caller.
 */
export function handleOnceInBatches<M>(
  sql: Sql,
  consumer: string,
  effect: (tx: TransactionSql, message: M) => Promise<unknown>,
  options: { keyOf: (message: M) => string; maxBatch?: number },
): OnceBatcher<M> {
  const { keyOf, maxBatch = 64 } = options;
  let pending: Pending<M>[] = [];
  let writing = false;
  const write = (batch: Pending<M>[]) => writeBatch(sql, consumer, effect, keyOf, batch);

  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        const ran = await write(batch);
        for (const [i, p] of batch.entries()) p.done({ ran: ran[i]! });
      } catch (batchError) {
        if (batch.length === 1) {
          batch[0]!.done({ error: batchError });
          continue;
        }
        for (const p of batch) {
          await write([p]).then(
            ([ran]) => p.done({ ran: ran! }),
            (error) => p.done({ error }),
          );
        }
      }
    }
    writing = false;
  }

  return (messageId, message) =>
    new Promise((resolve, reject) => {
      pending.push({
        id: messageId,
        message,
        done: (outcome) => ("error" in outcome ? reject(outcome.error) : resolve(outcome)),
      });
      if (!writing) void drain();
    });
}
