// An operator's retries of intents whose transaction failed on chain (chain_intent_retries, one
// table for every chain): the replacing attempt carries the watcher's attestation of the failure
// to the signer, which checks it (docs/signer.md, "Retries").
import type { Sql } from "@gateway/db";
import type { Chain, Mode } from "@gateway/domain";
import { type SupersessionInput, signFailure } from "@gateway/signer-client";
import type { RetryDeps } from "./chain-package.js";

export interface IntentRetry {
  /** Settlement's intent id, and the attempt that replaces the failed one. */
  intentId: string;
  attempt: number;
  supersedes: SupersessionInput;
  requestedBy: string;
}

export interface IntentRetries {
  /** The retry recorded for this attempt, if an operator made one. */
  read(intentId: string, attempt: number): Promise<SupersessionInput | undefined>;
  /** False when that attempt already has a retry on record (it is kept, not replaced). */
  record(retry: IntentRetry): Promise<boolean>;
}

/** Why the operator's retry was not made: the chain did not prove the failure, or it was made already. */
export class RetryRefusedError extends Error {
  override readonly name = "RetryRefusedError";
}

/** A retry on record: the attempt that will carry it, and the signer intent id and transaction it replaces. */
export interface FailedIntentRetry {
  attempt: number;
  replaces: string;
  txid: string;
}

export function createIntentRetries(sql: Sql, chain: Chain): IntentRetries {
  return {
    async read(intentId, attempt) {
      const [row] = await sql<{ replaces: string; txid: string; key_id: string; signature: Uint8Array }[]>`
        select replaces, txid, key_id, signature from chain_intent_retries
        where intent_id = ${intentId} and attempt = ${attempt} and chain = ${chain}`;
      if (!row) return undefined;
      return {
        intentId: row.replaces,
        failure: { keyId: row.key_id, signature: new Uint8Array(row.signature), txid: row.txid },
      };
    },
    async record({ intentId, attempt, supersedes, requestedBy }) {
      const { failure } = supersedes;
      const rows = await sql`
        insert into chain_intent_retries
          (intent_id, attempt, chain, replaces, txid, key_id, signature, requested_by)
        values (${intentId}, ${attempt}, ${chain}, ${supersedes.intentId}, ${failure.txid},
          ${failure.keyId}, ${Buffer.from(failure.signature)}, ${requestedBy})
        on conflict (intent_id, attempt) do nothing
        returning 1`;
      return rows.length > 0;
    },
  };
}

/**
 * Records the retry of an attempt whose transaction `failed.txid` the chain proved failed: the next
 * attempt carries the watcher's attestation of that failure, replacing signer intent `failed.replaces`.
 */
export async function recordAttestedRetry(
  deps: RetryDeps & { chain: Chain; mode: Mode },
  intentId: string,
  failed: { attempt: number; replaces: string; txid: string },
): Promise<FailedIntentRetry> {
  const { chain, mode, attestor, requestedBy } = deps;
  const failure = signFailure({ chain, mode, txid: failed.txid }, attestor);
  const attempt = failed.attempt + 1;
  const recorded = await createIntentRetries(deps.sql, chain).record({
    intentId,
    attempt,
    supersedes: { intentId: failed.replaces, failure },
    requestedBy,
  });
  if (!recorded) throw new RetryRefusedError(`${intentId}: attempt ${attempt} was retried already`);
  return { attempt, replaces: failed.replaces, txid: failed.txid };
}
