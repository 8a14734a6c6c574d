import type { Sql, TransactionSql } from "./client.js";

/** Resolves once the message's effect committed; rejects when it failed. */
export type MessageBatcher<M> = (message: M) => Promise<void>;

interface Pending<M> {
  message: M;
  done: (error?: unknown) => void;
}

/** One transaction: the batch's messages, those of one key one after another. */
async function writeBatch<M>(
  sql: Sql,
  effect: (tx: TransactionSql, message: M) => Promise<unknown>,
  keyOf: (message: M) => string,
  batch: Pending<M>[],
): Promise<void> {
  await sql.begin(async (tx) => {
    const byKey = new Map<string, M[]>();
    for (const { message } of batch) {
      const key = keyOf(message);
      const queue = byKey.get(key);
      if (queue) queue.push(message);
      else byKey.set(key, [message]);
    }
    // allSettled, not all: every statement has answered before the transaction ends, whichever failed.
    const outcomes = await Promise.allSettled(
      [...byKey.values()].map(async (messages) => {
        for (const message of messages) await effect(tx, message);
      }),
    );
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
  });
}

/**
 * For a consumer that hands over one message at a time: messages arriving while a batch is being
 * written join the next one, so batches grow with the load and stay at one under none. Messages
 * with the same `keyOf` (one actor's) run in arrival order; those of different keys run side by
 * side, pipelined on the transaction's connection. A failing batch is retried message by message,
 * so one bad message holds back no other. The effect must be idempotent by itself: nothing here
 * records which messages were handled (docs/reliability.md, "Exactly once without records").
 */
export function applyInBatches<M>(
  sql: Sql,
  effect: (tx: TransactionSql, message: M) => Promise<unknown>,
  options: { keyOf: (message: M) => string; maxBatch?: number },
): MessageBatcher<M> {
  const { keyOf, maxBatch = 64 } = options;
  let pending: Pending<M>[] = [];
  let writing = false;
  const write = (batch: Pending<M>[]) => writeBatch(sql, effect, keyOf, batch);

  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        await write(batch);
        for (const p of batch) p.done();
      } catch (batchError) {
        if (batch.length === 1) {
          batch[0]!.done(batchError);
          continue;
        }
        for (const p of batch) {
          await write([p]).then(
            () => p.done(),
            (error) => p.done(error ?? new Error("batch failed")),
          );
        }
      }
    }
    writing = false;
  }

  return (message) =>
    new Promise((resolve, reject) => {
      pending.push({ message, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!writing) void drain();
    });
}
