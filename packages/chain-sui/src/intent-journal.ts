// What was signed for each settlement intent, in PostgreSQL, as chain-solana's intent-journal.ts.
// Unlike Solana's one row per intent, every attempt is kept (an older one may execute while its
// inputs are current), and one runner at a time decides an intent (`exclusive`).
import type { Sql } from "@gateway/db";

/** Attempt 1 keeps the intent's id; a later one, after the earlier can never execute, gets `.<n>`. */
export const attemptIntentId = (intentId: string, attempt: number) =>
  attempt === 1 ? intentId : `${intentId}.${attempt}`;

export interface StoredAttempt {
  attempt: number;
  digest: string;
  txBytes: Uint8Array;
  signatures: string[];
  inputs: { objectId: string; version: string }[];
}

/** Transactions signed per intent, written before they are sent; and the final one per intent. */
function journalRecords(sql: Sql) {
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
  };
}

export type IntentRecords = ReturnType<typeof journalRecords>;

export function createIntentJournal(sql: Sql) {
  return {
    ...journalRecords(sql),

    /**
     * One runner per intent across processes: a session advisory lock held on a reserved
     * connection, released even when the work throws. The work reads and writes the records
     * through that same connection (`locked`): holders needing a second connection from the
     * pool would wait on each other once as many hold the lock as the pool has connections.
     */
    async exclusive<T>(intentId: string, work: (locked: IntentRecords) => Promise<T>): Promise<T> {
      const reserved = await sql.reserve();
      try {
        await reserved`select pg_advisory_lock(hashtextextended(${`sui-intent:${intentId}`}, 0))`;
        try {
          return await work(journalRecords(reserved));
        } finally {
          await reserved`select pg_advisory_unlock(hashtextextended(${`sui-intent:${intentId}`}, 0))`;
        }
      } finally {
        reserved.release();
      }
    },
  };
}

export type IntentJournal = ReturnType<typeof createIntentJournal>;
