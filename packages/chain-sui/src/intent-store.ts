import type { Sql } from "@gateway/db";

export interface StoredAttempt {
  attempt: number;
  digest: string;
  txBytes: Uint8Array;
  signatures: string[];
  inputs: { objectId: string; version: string }[];
}

/** Transactions signed per intent, written before they are sent; and the final one per intent. */
export function createIntentStore(sql: Sql) {
  return {
    async done(intentId: string): Promise<string | undefined> {
      const [row] = await sql<{ digest: string }[]>`
        select digest from sui_intents_done where intent_id = ${intentId}`;
      return row?.digest;
    },

    async markDone(intentId: string, digest: string, checkpoint: bigint): Promise<void> {
      await sql`insert into sui_intents_done (intent_id, digest, checkpoint)
        values (${intentId}, ${digest}, ${checkpoint}) on conflict (intent_id) do nothing`;
    },

    async attempts(intentId: string): Promise<StoredAttempt[]> {
      const rows = await sql<
        {
          attempt: number;
          digest: string;
          tx_bytes: Buffer;
          signatures: string[];
          inputs: StoredAttempt["inputs"];
        }[]
      >`select attempt, digest, tx_bytes, signatures, inputs from sui_intent_attempts
        where intent_id = ${intentId} order by attempt desc`;
      return rows.map((r) => ({
        attempt: r.attempt,
        digest: r.digest,
        txBytes: new Uint8Array(r.tx_bytes),
        signatures: r.signatures,
        inputs: r.inputs,
      }));
    },

    /** Committed before the transaction is sent: a crash after sending still finds it. */
    async record(intentId: string, attempt: StoredAttempt): Promise<void> {
      await sql`insert into sui_intent_attempts (intent_id, attempt, digest, tx_bytes, signatures, inputs)
        values (${intentId}, ${attempt.attempt}, ${attempt.digest}, ${Buffer.from(attempt.txBytes)},
                ${attempt.signatures}, ${sql.json(attempt.inputs as never)})`;
    },

    /**
     * One runner per intent across processes: a session advisory lock held on a reserved
     * connection for the whole build-sign-send-wait, released even when the work throws.
     */
    async exclusive<T>(intentId: string, work: () => Promise<T>): Promise<T> {
      const reserved = await sql.reserve();
      try {
        await reserved`select pg_advisory_lock(hashtextextended(${`sui-intent:${intentId}`}, 0))`;
        try {
          return await work();
        } finally {
          await reserved`select pg_advisory_unlock(hashtextextended(${`sui-intent:${intentId}`}, 0))`;
        }
      } finally {
        reserved.release();
      }
    },
  };
}

export type IntentStore = ReturnType<typeof createIntentStore>;
