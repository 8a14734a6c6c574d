// What was sent for each settlement intent, kept in PostgreSQL so that a retry (another
// attempt, another replica, a restart) looks on chain for the earlier transaction before it
// builds a new one.
import type { Sql } from "@gateway/db";

export interface IntentRecord {
  signatures: string[];
  lastValidBlockHeight: bigint | null;
  finalTxid: string | null;
}

export interface IntentJournal {
  read(intentId: string): Promise<IntentRecord>;
  /** Written before the transaction is sent: a crash after sending still leaves its signature here. */
  recordSent(intentId: string, signature: string, lastValidBlockHeight: bigint): Promise<void>;
  /** The node refused it in preflight: it never reached the cluster. */
  forget(intentId: string, signature: string): Promise<void>;
  recordFinal(intentId: string, txid: string): Promise<void>;
}

export function createIntentJournal(sql: Sql, chain: "solana" | "sui"): IntentJournal {
  return {
    async read(intentId) {
      const [row] = await sql<
        { signatures: string[]; last_valid_block_height: bigint | null; final_txid: string | null }[]
      >`select signatures, last_valid_block_height, final_txid from chain_intents where intent_id = ${intentId}`;
      return {
        signatures: row?.signatures ?? [],
        lastValidBlockHeight: row?.last_valid_block_height ?? null,
        finalTxid: row?.final_txid ?? null,
      };
    },
    async recordSent(intentId, signature, lastValidBlockHeight) {
      await sql`
        insert into chain_intents (intent_id, chain, signatures, last_valid_block_height)
        values (${intentId}, ${chain}, ${[signature]}, ${lastValidBlockHeight})
        on conflict (intent_id) do update set
          signatures = array_append(chain_intents.signatures, ${signature}),
          last_valid_block_height = ${lastValidBlockHeight},
          updated_at = now()`;
    },
    async forget(intentId, signature) {
      await sql`update chain_intents set signatures = array_remove(signatures, ${signature}), updated_at = now()
        where intent_id = ${intentId}`;
    },
    async recordFinal(intentId, txid) {
      await sql`update chain_intents set final_txid = ${txid}, updated_at = now() where intent_id = ${intentId}`;
    },
  };
}
