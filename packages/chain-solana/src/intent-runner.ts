// Runs one settlement intent on Solana to finality, exactly once: it resends the signer's one
// transaction for the intent id until it is final or can never land, and only then starts a new
// attempt under a new signer intent id. docs/solana.md has the argument.
import { createHash } from "node:crypto";
import { createIntentRetries } from "@gateway/chain-kit";
import { solanaWireTransaction } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type SignerClient,
  SignerRefusedError,
  type SupersessionInput,
} from "@gateway/signer-client";
import type { Connection } from "@solana/web3.js";
import bs58 from "bs58";
import { createIntentJournal, type IntentRecord, type SignedAttempt } from "./intent-journal.js";
import { createLandingPoller } from "./landing-poller.js";
import type { NoncePool } from "./nonce-pool.js";
import { nonceOf } from "./transaction-outcome.js";

export interface SolanaIntentSpec {
  /** Settlement's id for the effect; the journal's key. */
  intentId: string;
  mode: Mode;
  /** Spend a durable nonce (refunds and payouts: the signer requires one). */
  durable: boolean;
  /**
   * The signer's intent, under the attempt's signer intent id; `supersedes` when an operator
   * retried an attempt that failed on chain (its approval must cover it).
   */
  intent(signerIntentId: string, supersedes?: SupersessionInput): IntentInput | Promise<IntentInput>;
  /** The unsigned message for a recent blockhash, or for a nonce's value with its account. */
  build(recentBlockhash: string, nonceAccount: string | undefined): Promise<Uint8Array>;
}

export interface SolanaIntentRunner {
  run(spec: SolanaIntentSpec): Promise<string>;
}

export interface SolanaIntentRunnerOptions {
  sql: Sql;
  connection: Connection;
  signer: SignerClient;
  pool: NoncePool;
  log: Logger;
  pollMs?: number;
  /** Give up one call (the caller retries later) after this long; default 90 s. */
  attemptTimeoutMs?: number;
}

export class SolanaIntentError extends Error {
  override readonly name = "SolanaIntentError";
}

/**
 * The signer takes intent ids of at most 128 characters of [A-Za-z0-9_:.-]; ours embed transfer
 * ids. Long ones become their kind plus a digest: still stable per effect.
 */
export function signerIntentId(intentId: string): string {
  if (intentId.length <= 128) return intentId;
  const kind = intentId.split(":")[0] ?? "intent";
  return `${kind}:${createHash("sha256").update(intentId).digest("hex")}`;
}

/** Attempt 1 keeps the intent's id; a later one, after the earlier could never land, gets `.<n>`. */
export const attemptIntentId = (intentId: string, attempt: number) =>
  signerIntentId(attempt === 1 ? intentId : `${intentId}.${attempt}`);

export function createSolanaIntentRunner(options: SolanaIntentRunnerOptions): SolanaIntentRunner {
  const { sql, connection, signer, pool, log } = options;
  // One batched call a poll whatever the number in flight, so polls can come often.
  const pollMs = options.pollMs ?? 100;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 90_000;
  const journal = createIntentJournal(sql, "solana");
  const retries = createIntentRetries(sql, "solana");
  const landing = createLandingPoller({ connection, log, pollMs });

  /** The attempt as recorded, or null when nothing was signed (a nonce lease lost; try again). */
  async function signAndSend(spec: SolanaIntentSpec, attempt: number): Promise<SignedAttempt | null> {
    const nonce = spec.durable ? await pool.lease(spec.intentId, spec.mode) : undefined;
    const recent = nonce?.value ?? (await connection.getLatestBlockhash("confirmed")).blockhash;
    const message = await spec.build(recent, nonce?.account);
    let signed: Awaited<ReturnType<SignerClient["sign"]>>;
    try {
      const supersedes = attempt > 1 ? await retries.read(spec.intentId, attempt) : undefined;
      signed = await signer.sign({
        intent: await spec.intent(attemptIntentId(spec.intentId, attempt), supersedes),
        unsignedTransaction: message,
      });
    } catch (error) {
      if (nonce && error instanceof SignerRefusedError && error.refusal.code === "INPUT_IN_USE") {
        // A lease lost to a database restore: the signer holds this value for another intent.
        await pool.block(nonce.account, nonce.value);
        return null;
      }
      throw error;
    }
    // A repeat gets the transaction signed the first time, which may spend another nonce.
    const bound = nonceOf(signed.transaction);
    if (bound && bound.account !== nonce?.account) await pool.adopt(spec.intentId, bound.account);
    const wire = solanaWireTransaction(signed.transaction, signed.signatures);
    const signature = bs58.encode(signed.signatures[0]!.signature);
    const attemptSigned: SignedAttempt = {
      attempt,
      message: signed.transaction,
      wire,
      signature,
      nonceAccount: bound?.account ?? null,
      nonceValue: bound?.value ?? null,
    };
    await journal.recordSigned(spec.intentId, attemptSigned);
    await connection
      .sendRawTransaction(wire, { preflightCommitment: "confirmed", maxRetries: 5 })
      .then(() => log.info({ intentId: spec.intentId, signature, attempt }, "solana transaction sent"))
      .catch((error) =>
        log.warn({ err: String(error), intentId: spec.intentId, signature }, "send refused; will resend"),
      );
    return attemptSigned;
  }

  /** A nonce is released only by an intent that may hold one: sweeps never lease. */
  async function release(spec: SolanaIntentSpec, record: IntentRecord) {
    if (spec.durable || record.nonceAccount) await pool.release(spec.intentId);
  }

  return {
    async run(spec) {
      const deadline = Date.now() + attemptTimeoutMs;
      // Read once, then kept: while this runner runs the intent nobody else writes its row (the
      // consumer hands a message to one replica at a time, for longer than attemptTimeoutMs), and
      // were two ever to run it at once, the signer's one transaction per signer intent id keeps
      // the effect single (docs/solana.md).
      let record = await journal.read(spec.intentId);
      for (;;) {
        if (Date.now() > deadline) throw new SolanaIntentError(`intent ${spec.intentId} not final in time`);
        if (record.finalTxid) return record.finalTxid;
        if (!record.message || !record.wire || !record.signature) {
          const signed = await signAndSend(spec, record.attempt);
          // As the journal now holds it (recordSigned adds the signature to the list once).
          record = signed
            ? {
                ...signed,
                signatures: [...new Set([...record.signatures, signed.signature])],
                finalTxid: null,
              }
            : await journal.read(spec.intentId);
          continue;
        }
        const fate = await landing.fateOf({
          signature: record.signature,
          message: record.message,
          wire: record.wire,
          nonceAccount: record.nonceAccount,
        });
        if (fate.state === "final") {
          await journal.recordFinal(spec.intentId, fate.txid);
          await release(spec, record);
          return fate.txid;
        }
        if (fate.state === "dead") {
          log.warn(
            { intentId: spec.intentId, attempt: record.attempt, why: fate.why },
            "transaction can never land; new attempt",
          );
          await journal.recordDead(spec.intentId, record.attempt);
          await release(spec, record);
          record = await journal.read(spec.intentId);
        }
      }
    },
  };
}
