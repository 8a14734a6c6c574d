import type { Sql, TransactionSql } from "./client.js";

/** Resolves with the message's effect's result once it committed; rejects when it failed. */
export type MessageBatcher<M, R> = (message: M) => Promise<R>;

type Outcome<R> = { result: R } | { error: unknown };

interface Pending<M, R> {
  message: M;
  done: (outcome: Outcome<R>) => void;
}

/**
 * Messages that arrive while a batch is written form the next one, handed whole (in arrival order)
 * to `effect` in one transaction; a failing batch is retried one message at a time, so a bad one
 * fails alone. The effect must be idempotent: nothing records handled messages (docs/reliability.md).
 */
export function applyWholeBatches<M, R>(
  sql: Sql,
  effect: (tx: TransactionSql, messages: M[]) => Promise<R[]>,
  options: { maxBatch?: number } = {},
): MessageBatcher<M, R> {
  const write = async (batch: Pending<M, R>[]) =>
    (await sql.begin((tx) =>
      effect(
        tx,
        batch.map((p) => p.message),
      ),
    )) as R[];
  return batching(write, options.maxBatch ?? 64);
}

/** Gathers the messages handed over into batches, one batch written at a time. */
function batching<M, R>(
  write: (batch: Pending<M, R>[]) => Promise<R[]>,
  maxBatch: number,
): MessageBatcher<M, R> {
  let pending: Pending<M, R>[] = [];
  let writing = false;

  async function drain() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      try {
        const results = await write(batch);
        for (const [i, p] of batch.entries()) p.done({ result: results[i]! });
      } catch (batchError) {
        if (batch.length === 1) {
          batch[0]!.done({ error: batchError });
          continue;
        }
        for (const p of batch) {
          await write([p]).then(
            ([result]) => p.done({ result: result! }),
            (error) => p.done({ error }),
          );
        }
      }
    }
    writing = false;
  }

  return (message) =>
    new Promise((resolve, reject) => {
      pending.push({
        message,
        done: (outcome) => ("error" in outcome ? reject(outcome.error) : resolve(outcome.result)),
      });
      if (!writing) void drain();
    });
}
