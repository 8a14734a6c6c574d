import type { Sql, TransactionSql } from "./client.js";

/** Resolves with the message's effect's result once it committed; rejects when it failed. */
export type MessageBatcher<M, R> = (message: M) => Promise<R>;

type Outcome<R> = { result: R } | { error: unknown };

interface Pending<M, R> {
  message: M;
  done: (outcome: Outcome<R>) => void;
}

/** One transaction: the batch's messages, those of one key one after another; results in batch order. */
async function writeBatch<M, R>(
  sql: Sql,
  effect: (tx: TransactionSql, message: M) => Promise<R>,
  keyOf: (message: M) => string,
  batch: Pending<M, R>[],
): Promise<R[]> {
  return (await sql.begin(async (tx) => {
    const byKey = new Map<string, number[]>();
    for (const [i, { message }] of batch.entries()) {
      const key = keyOf(message);
      const queue = byKey.get(key);
      if (queue) queue.push(i);
      else byKey.set(key, [i]);
    }
    const results: R[] = new Array(batch.length);
    // allSettled, not all: every statement has answered before the transaction ends, whichever failed.
    const outcomes = await Promise.allSettled(
      [...byKey.values()].map(async (indexes) => {
        for (const i of indexes) results[i] = await effect(tx, batch[i]!.message);
      }),
    );
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
    return results;
  })) as R[];
}

/**
 * For a consumer that hands over one message at a time: messages arriving while a batch is being
 * written join the next one, so batches grow with the load and stay at one under none. Messages
 * with the same `keyOf` (one actor's) run in arrival order; those of different keys run side by
 * side, pipelined on the transaction's connection. A failing batch is retried message by message,
 * so one bad message holds back no other. The effect must be idempotent by itself: nothing here
 * records which messages were handled (docs/reliability.md, "Exactly once without records").
 */
export function applyInBatches<M, R>(
  sql: Sql,
  effect: (tx: TransactionSql, message: M) => Promise<R>,
  options: { keyOf: (message: M) => string; maxBatch?: number },
): MessageBatcher<M, R> {
  const { keyOf, maxBatch = 64 } = options;
  return batching((batch) => writeBatch(sql, effect, keyOf, batch), maxBatch);
}

/**
 * As `applyInBatches`, for an effect that takes the whole batch (in arrival order) and answers
 * for each message in the batch's order: it can write the batch's rows of a table in one
 * statement. A failing batch is retried message by message, as a batch of one each.
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
