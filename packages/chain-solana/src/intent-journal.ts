// What was signed for each settlement intent, kept in PostgreSQL: the one transaction the signer
// bound to the current attempt (message and signed wire bytes), the durable nonce it spends, and
// every signature ever sent. A retry (another attempt, another replica, a restart) resends these
// bytes; only when they can never land does a new attempt begin.
import type { Sql } from "@gateway/db";
import type { Chain } from "@gateway/domain";

export interface IntentRecord {
  attempt: number;
  /** The current attempt's signed transaction, once the signer answered. */
  message: Uint8Array | null;
  wire: Uint8Array | null;
  signature: string | null;
  nonceAccount: string | null;
  nonceValue: string | null;
  /** Every signature sent for this intent, oldest first. */
  signatures: string[];
  finalTxid: string | null;
}

export interface SignedAttempt {
  attempt: number;
  message: Uint8Array;
  wire: Uint8Array;
  signature: string;
  nonceAccount: string | null;
  nonceValue: string | null;
}

export interface IntentJournal {
  read(intentId: string): Promise<IntentRecord>;
  /** Written before the transaction is sent: a crash after sending still leaves it here. */
  recordSigned(intentId: string, signed: SignedAttempt): Promise<void>;
  /** The attempt's transaction can never land: the next one starts from nothing. */
  recordDead(intentId: string, attempt: number): Promise<void>;
  recordFinal(intentId: string, txid: string): Promise<void>;
}

interface Row {
  attempt: number;
  message: Uint8Array | null;
  wire: Uint8Array | null;
  signature: string | null;
  nonce_account: string | null;
  nonce_value: string | null;
  signatures: string[];
  final_txid: string | null;
}

export function createIntentJournal(sql: Sql, chain: Chain): IntentJournal {
  return {
    async read(intentId) {
      const [row] = await sql<Row[]>`
        select attempt, message, wire, signature, nonce_account, nonce_value, signatures, final_txid
        from chain_intents where intent_id = ${intentId}`;
      return {
        attempt: row?.attempt ?? 1,
        message: row?.message ? new Uint8Array(row.message) : null,
        wire: row?.wire ? new Uint8Array(row.wire) : null,
        signature: row?.signature ?? null,
        nonceAccount: row?.nonce_account ?? null,
        nonceValue: row?.nonce_value ?? null,
        signatures: row?.signatures ?? [],
        finalTxid: row?.final_txid ?? null,
      };
    },
    async recordSigned(intentId, s) {
      const message = Buffer.from(s.message);
      const wire = Buffer.from(s.wire);
      await sql`
        insert into chain_intents
          (intent_id, chain, attempt, message, wire, signature, nonce_account, nonce_value, signatures)
        values (${intentId}, ${chain}, ${s.attempt}, ${message}, ${wire}, ${s.signature},
          ${s.nonceAccount}, ${s.nonceValue}, ${[s.signature]})
        on conflict (intent_id) do update set
          attempt = excluded.attempt, message = excluded.message, wire = excluded.wire,
          signature = excluded.signature, nonce_account = excluded.nonce_account,
          nonce_value = excluded.nonce_value,
          signatures = case when ${s.signature} = any(chain_intents.signatures) then chain_intents.signatures
            else array_append(chain_intents.signatures, ${s.signature}) end,
          updated_at = now()`;
    },
    async recordDead(intentId, attempt) {
      await sql`
        update chain_intents set attempt = ${attempt + 1}, message = null, wire = null, signature = null,
          nonce_account = null, nonce_value = null, updated_at = now()
        where intent_id = ${intentId} and attempt = ${attempt}`;
    },
    async recordFinal(intentId, txid) {
      await sql`update chain_intents set final_txid = ${txid}, updated_at = now() where intent_id = ${intentId}`;
    },
  };
}
