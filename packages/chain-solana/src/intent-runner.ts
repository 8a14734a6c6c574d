// Runs one settlement intent on Solana to finality, exactly once: it resends the signer's one
// transaction for the intent id until it is final or can never land, and only then starts a new
// attempt under a new signer intent id. docs/solana.md has the argument.
import { createHash } from "node:crypto";
import { createIntentRetries, type IntentRetries } from "@gateway/chain-kit";
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
import {
  createIntentJournal,
  type IntentJournal,
  type IntentRecord,
  type SignedAttempt,
} from "./intent-journal.js";
import { createLandingPoller, type LandingPoller } from "./landing-poller.js";
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
  return new IntentRunner(options);
}

class IntentRunner implements SolanaIntentRunner {
  readonly #o: SolanaIntentRunnerOptions;
  readonly #attemptTimeoutMs: number;
  readonly #journal: IntentJournal;
  readonly #retries: IntentRetries;
  readonly #landing: LandingPoller;

  constructor(options: SolanaIntentRunnerOptions) {
    this.#o = options;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 90_000;
    this.#journal = createIntentJournal(options.sql, "solana");
    this.#retries = createIntentRetries(options.sql, "solana");
    // One batched call a poll whatever the number in flight, so polls can come often.
    this.#landing = createLandingPoller({
      connection: options.connection,
      log: options.log,
      pollMs: options.pollMs ?? 100,
    });
  }

  async run(spec: SolanaIntentSpec): Promise<string> {
    const deadline = Date.now() + this.#attemptTimeoutMs;
    // Read once, then kept: while this runner runs the intent nobody else writes its row (the
    // consumer hands a message to one replica at a time, for longer than attemptTimeoutMs), and
    // were two ever to run it at once, the signer's one transaction per signer intent id keeps
    // the effect single (docs/solana.md).
    let record = await this.#journal.read(spec.intentId);
    for (;;) {
      if (Date.now() > deadline) throw new SolanaIntentError(`intent ${spec.intentId} not final in time`);
      if (record.finalTxid) return record.finalTxid;
      if (!record.message || !record.wire || !record.signature) {
        const signed = await this.#signAndSend(spec, record.attempt);
        // As the journal now holds it (recordSigned adds the signature to the list once).
        record = signed
          ? { ...signed, signatures: [...new Set([...record.signatures, signed.signature])], finalTxid: null }
          : await this.#journal.read(spec.intentId);
        continue;
      }
      const fate = await this.#landing.fateOf({
        signature: record.signature,
        message: record.message,
        wire: record.wire,
        nonceAccount: record.nonceAccount,
      });
      if (fate.state === "final") {
        await this.#journal.recordFinal(spec.intentId, fate.txid);
        await this.#release(spec, record);
        return fate.txid;
      }
      if (fate.state === "dead") record = await this.#bury(spec, record, fate.why);
    }
  }

  /** The attempt can never land: recorded dead, and the record read again for the next one. */
  async #bury(spec: SolanaIntentSpec, record: IntentRecord, why: string): Promise<IntentRecord> {
    this.#o.log.warn(
      { intentId: spec.intentId, attempt: record.attempt, why },
      "transaction can never land; new attempt",
    );
    await this.#journal.recordDead(spec.intentId, record.attempt);
    await this.#release(spec, record);
    return this.#journal.read(spec.intentId);
  }

  /** A nonce is released only by an intent that may hold one: sweeps never lease. */
  async #release(spec: SolanaIntentSpec, record: IntentRecord) {
    if (spec.durable || record.nonceAccount) await this.#o.pool.release(spec.intentId);
  }

  /** The attempt as recorded, or null when nothing was signed (a nonce lease lost; try again). */
  async #signAndSend(spec: SolanaIntentSpec, attempt: number): Promise<SignedAttempt | null> {
    const { connection, pool, log } = this.#o;
    const answer = await this.#sign(spec, attempt);
    if (!answer) return null;
    const { signed, leased } = answer;
    // A repeat gets the transaction signed the first time, which may spend another nonce.
    const bound = nonceOf(signed.transaction);
    if (bound && bound.account !== leased) await pool.adopt(spec.intentId, bound.account);
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
    await this.#journal.recordSigned(spec.intentId, attemptSigned);
    await connection
      .sendRawTransaction(wire, { preflightCommitment: "confirmed", maxRetries: 5 })
      .then(() => log.info({ intentId: spec.intentId, signature, attempt }, "solana transaction sent"))
      .catch((error) =>
        log.warn({ err: String(error), intentId: spec.intentId, signature }, "send refused; will resend"),
      );
    return attemptSigned;
  }

  /** The signer's transaction for the attempt, with the nonce account leased for it, if any. */
  async #sign(spec: SolanaIntentSpec, attempt: number) {
    const { connection, signer, pool } = this.#o;
    const nonce = spec.durable ? await pool.lease(spec.intentId, spec.mode) : undefined;
    const recent = nonce?.value ?? (await connection.getLatestBlockhash("confirmed")).blockhash;
    const message = await spec.build(recent, nonce?.account);
    try {
      const supersedes = attempt > 1 ? await this.#retries.read(spec.intentId, attempt) : undefined;
      const signed = await signer.sign({
        intent: await spec.intent(attemptIntentId(spec.intentId, attempt), supersedes),
        unsignedTransaction: message,
      });
      return { signed, leased: nonce?.account };
    } catch (error) {
      if (nonce && error instanceof SignerRefusedError && error.refusal.code === "INPUT_IN_USE") {
        // A lease lost to a database restore: the signer holds this value for another intent.
        await pool.block(nonce.account, nonce.value);
        return null;
      }
      throw error;
    }
  }
}
