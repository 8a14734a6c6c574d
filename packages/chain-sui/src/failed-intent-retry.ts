// The operator's retry of a refund that failed on chain (docs/operations.md). Runs with the
// watcher's key, never settlement's: only a transaction the chain shows can never move money is attested.
import {
  type FailedIntentRetry,
  type RetryDeps,
  RetryRefusedError,
  recordAttestedRetry,
} from "@gateway/chain-kit";
import type { Mode } from "@gateway/domain";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { attemptIntentId, createIntentJournal, type StoredAttempt } from "./intent-journal.js";
import { findSuiTransaction, ownedInputsCurrent } from "./transaction-outcome.js";

export { type FailedIntentRetry, RetryRefusedError };

/** `attestor`: the watcher's attestation key (WATCHER_ATTESTATION_SEED). */
export interface FailedIntentRetryOptions extends RetryDeps {
  /** A full node that keeps the transactions back to the refund's: "not known" must mean never executed. */
  client: SuiGrpcClient;
}

/**
 * Why the attempt cannot be attested as failed, or undefined when it can never move money: it
 * executed with a failure in a checkpoint, or the chain does not know it and an owned input it
 * spends has moved on (consumed at that version by another transaction, so it can never execute).
 * Not knowing the digest alone proves nothing: the same bytes may still be sent.
 */
async function notFailed(client: SuiGrpcClient, attempt: StoredAttempt): Promise<string | undefined> {
  const tx = await findSuiTransaction(client, attempt.digest);
  if (tx) {
    if (tx.checkpoint === undefined || tx.checkpoint === null) return "it is not final yet";
    return tx.status.success ? "it succeeded" : undefined;
  }
  if (await ownedInputsCurrent(client, attempt.inputs))
    return "the chain does not show it and its inputs are still current: it may yet execute";
  return undefined;
}

/**
 * Attests that settlement intent `intentId`'s latest transaction failed on chain (or can never
 * execute) and records the retry for its next attempt. Refused (RetryRefusedError) when the intent
 * is final, was never signed, its latest transaction may still move money, or that attempt was
 * retried already.
 */
export async function retryFailedIntent(
  options: FailedIntentRetryOptions,
  intentId: string,
  mode: Mode,
): Promise<FailedIntentRetry> {
  const { sql, client } = options;
  const journal = createIntentJournal(sql);
  const [done, attempts] = await Promise.all([journal.done(intentId), journal.attempts(intentId)]);
  if (done) throw new RetryRefusedError(`${intentId} is final on chain (${done})`);
  // Newest first. Settlement opens an attempt only once every earlier one can never execute.
  const latest = attempts[0];
  if (!latest) throw new RetryRefusedError(`${intentId} has no signed transaction`);
  const why = await notFailed(client, latest);
  if (why)
    throw new RetryRefusedError(`${intentId}: transaction ${latest.digest} did not fail on chain: ${why}`);
  return recordAttestedRetry({ ...options, chain: "sui", mode }, intentId, {
    attempt: latest.attempt,
    replaces: attemptIntentId(intentId, latest.attempt),
    txid: latest.digest,
  });
}
