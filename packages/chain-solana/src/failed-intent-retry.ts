// The operator's retry of a refund that failed on chain (docs/operations.md). Runs with the
// watcher's key, never settlement's: only a transaction the chain shows failed is attested.
import {
  type FailedIntentRetry,
  type RetryDeps,
  RetryRefusedError,
  recordAttestedRetry,
} from "@gateway/chain-kit";
import type { Mode } from "@gateway/domain";
import type { Connection } from "@solana/web3.js";
import { createIntentJournal } from "./intent-journal.js";
import { attemptIntentId } from "./intent-runner.js";

export { type FailedIntentRetry, RetryRefusedError };

/** `attestor`: the watcher's attestation key (WATCHER_ATTESTATION_SEED). */
export interface FailedIntentRetryOptions extends RetryDeps {
  /** Read at `finalized`: only a final failure is attested. */
  connection: Connection;
}

/** Why the transaction cannot be attested as failed, or undefined when it failed at finality. */
async function notFailed(connection: Connection, txid: string): Promise<string | undefined> {
  const { value } = await connection.getSignatureStatuses([txid], { searchTransactionHistory: true });
  const status = value[0];
  if (!status) return "the chain does not show it";
  if (status.confirmationStatus !== "finalized") return "it is not final yet";
  return status.err ? undefined : "it succeeded";
}

/**
 * Attests that settlement intent `intentId`'s latest transaction failed on chain and records the
 * retry for its next attempt. Refused (RetryRefusedError) when the intent is final, was never
 * signed, its transaction did not fail at finality, or that attempt was retried already.
 */
export async function retryFailedIntent(
  options: FailedIntentRetryOptions,
  intentId: string,
  mode: Mode,
): Promise<FailedIntentRetry> {
  const { sql, connection } = options;
  const journal = createIntentJournal(sql, "solana");
  const record = await journal.read(intentId);
  if (record.finalTxid) throw new RetryRefusedError(`${intentId} is final on chain (${record.finalTxid})`);
  // The runner may not have looked at its transaction since it failed: then it is still current.
  const current = record.signature !== null;
  const txid = record.signature ?? record.signatures.at(-1);
  const failedAttempt = current ? record.attempt : record.attempt - 1;
  if (!txid || failedAttempt < 1) throw new RetryRefusedError(`${intentId} has no signed transaction`);
  const why = await notFailed(connection, txid);
  if (why) throw new RetryRefusedError(`${intentId}: transaction ${txid} did not fail on chain: ${why}`);
  const replaces = attemptIntentId(intentId, failedAttempt);
  const retry = await recordAttestedRetry({ ...options, chain: "solana", mode }, intentId, {
    attempt: failedAttempt,
    replaces,
    txid,
  });
  // Recorded first, so the attempt the runner opens next finds it.
  if (current) await journal.recordDead(intentId, failedAttempt);
  return retry;
}
