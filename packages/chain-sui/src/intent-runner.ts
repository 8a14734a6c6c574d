// Runs one settlement intent on Sui to finality, exactly once: every signed transaction is
// journaled before it is sent, and a retry re-sends one whose inputs are still current, building
// anew only when none can ever execute (a Sui attempt dies when an owned input it spends moves on).
import { createIntentRetries, type IntentRetries } from "@gateway/chain-kit";
import type { SuiSweepInput } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type SignedIntent,
  type SignerClient,
  SignerRefusedError,
  type SupersessionInput,
} from "@gateway/signer-client";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { TransactionDataBuilder } from "@mysten/sui/transactions";
import pLimit, { type LimitFunction } from "p-limit";
import { CoinPicker } from "./coin-picker.js";
import {
  attemptIntentId,
  createIntentJournal,
  type IntentJournal,
  type IntentRecords,
  type StoredAttempt,
} from "./intent-journal.js";
import { createLandingPoller, type FinalTransaction, type LandingPoller } from "./landing-poller.js";
import type { OwnedCoin } from "./owned-coins.js";
import { findSuiTransaction, ownedInputs, ownedInputsCurrent } from "./transaction-outcome.js";

export interface SuiIntentSpec {
  /** Settlement's id for the effect; the journal's key. */
  intentId: string;
  /**
   * The signer's intent, under the attempt's signer intent id; `supersedes` when an operator
   * retried an attempt that failed on chain (a refund's approval must cover it).
   */
  intent(signerIntentId: string, supersedes?: SupersessionInput): IntentInput;
  coinType: string;
  source: string;
  destination: string;
  amount: bigint;
  /** The mode's gas wallet, which sponsors the transaction. */
  gasOwner: string;
  /** A sweep sends from a deposit address; refunds from the vault. */
  build(input: SuiSweepInput): Promise<Uint8Array>;
}

export interface SuiIntentRunner {
  run(spec: SuiIntentSpec): Promise<string>;
}

export interface SuiIntentRunnerOptions {
  sql: Sql;
  client: SuiGrpcClient;
  signer: SignerClient;
  log: Logger;
  /** The gas wallet's coin type, asked each time the wallet is listed. */
  gasCoinType: () => string;
  /** MIST; must stay under the signer's SIGNER_SUI_MAX_GAS_BUDGET. */
  gasBudget: bigint;
  finalityTimeoutMs: number;
  finalityPollMs: number | undefined;
  /** Intents deciding at once (SuiSettlementOptions.decidingAtOnce). */
  decidingAtOnce: number;
}

/** Rejections that mean an input moved on since the transaction was built: rebuild and re-sign. */
const STALE =
  /ObjectVersionUnavailableForConsumption|ObjectNotFound|InvalidObjectDigest|IncorrectUserSignature/;
const ROUNDS = 6;

type Decided = { final: string } | { sent: StoredAttempt };

const inputIds = (attempt: StoredAttempt) => attempt.inputs.map((input) => input.objectId);

const send = (client: SuiGrpcClient, attempt: StoredAttempt) =>
  client.executeTransaction({
    transaction: attempt.txBytes,
    signatures: attempt.signatures,
    include: { effects: true },
  });

export function createSuiIntentRunner(options: SuiIntentRunnerOptions): SuiIntentRunner {
  return new IntentRunner(options);
}

class IntentRunner implements SuiIntentRunner {
  readonly #o: SuiIntentRunnerOptions;
  readonly #journal: IntentJournal;
  readonly #retries: IntentRetries;
  readonly #deciding: LimitFunction;
  readonly #landing: LandingPoller;
  readonly #coins: CoinPicker;
  #gasPrice: { value: bigint; at: number } | undefined;

  constructor(options: SuiIntentRunnerOptions) {
    const { sql, client, log } = options;
    this.#o = options;
    this.#journal = createIntentJournal(sql);
    this.#retries = createIntentRetries(sql, "sui");
    this.#deciding = pLimit(options.decidingAtOnce);
    this.#landing = createLandingPoller({ client, log, intervalMs: options.finalityPollMs });
    this.#coins = new CoinPicker({ client, gasCoinType: options.gasCoinType, gasBudget: options.gasBudget });
  }

  /**
   * Decides, builds, signs, records and sends under the intent's lock, and waits for finality
   * after it, so a connection is held only while deciding; a second runner waits on the same
   * recorded transaction (settlePrior).
   */
  async run(spec: SuiIntentSpec): Promise<string> {
    const decided = await this.#deciding(() =>
      this.#journal.exclusive<Decided>(spec.intentId, (locked) => this.#decide(spec, locked)),
    );
    if ("final" in decided) return decided.final;
    return this.#finish(spec, decided.sent);
  }

  async #decide(spec: SuiIntentSpec, locked: IntentRecords): Promise<Decided> {
    // Both asked in one round trip (pipelined on the lock's connection).
    const [done, stored] = await Promise.all([locked.done(spec.intentId), locked.attempts(spec.intentId)]);
    if (done) return { final: done };
    // Newest first, as stored; this runner's own attempts join it as it records them.
    const previous = [...stored];
    for (let round = 0; round < ROUNDS; round++) {
      const prior = await this.#settlePrior(locked, spec.intentId, previous);
      if (prior) return { final: prior };
      const attempt = await this.#signNext(spec, (previous[0]?.attempt ?? 0) + 1);
      if (attempt && (await this.#recordAndSend(spec, locked, attempt, previous))) return { sent: attempt };
    }
    throw new Error(`intent ${spec.intentId}: inputs kept moving, giving up for now`);
  }

  /** The next attempt, signed; undefined when another replica's intent holds one of its coins. */
  async #signNext(spec: SuiIntentSpec, attempt: number): Promise<StoredAttempt | undefined> {
    try {
      return await this.#buildAndSign(spec, attempt);
    } catch (err) {
      // Another replica's intent holds one of these coin versions: pick others.
      if (!(err instanceof SignerRefusedError && err.refusal.code === "INPUT_IN_USE")) throw err;
      this.#coins.heldElsewhere(/sui-object:(0x[0-9a-f]+)@/.exec(err.refusal.reason)?.[1], 5_000);
      return undefined;
    }
  }

  /**
   * Records the attempt, then sends it: true once it is in flight (its inputs stay busy until it
   * is final), false when an input moved on before it executed (build again).
   */
  async #recordAndSend(
    spec: SuiIntentSpec,
    locked: IntentRecords,
    attempt: StoredAttempt,
    previous: StoredAttempt[],
  ): Promise<boolean> {
    this.#coins.reserve(inputIds(attempt));
    let inFlight = false;
    try {
      await locked.record(spec.intentId, attempt);
      previous.unshift(attempt);
      try {
        await this.#execute(attempt);
      } catch (err) {
        if (!STALE.test(String(err))) throw err;
        this.#o.log.info({ intentId: spec.intentId, err: String(err) }, "sui inputs moved on; rebuilding");
        return false;
      }
      inFlight = true;
      return true;
    } finally {
      if (!inFlight) this.#coins.release(inputIds(attempt));
    }
  }

  /** After the lock: waits for the sent attempt's checkpoint and records it final. */
  async #finish(spec: SuiIntentSpec, attempt: StoredAttempt): Promise<string> {
    let result: FinalTransaction;
    try {
      result = await this.#final(attempt.digest);
    } finally {
      // The coins stay ours until the checkpoint (their next versions come from this
      // transaction), and not a moment longer: runners holding the lock's connection may be
      // waiting for one, and this runner needs a pool connection for what follows.
      this.#coins.release(inputIds(attempt));
    }
    if (!result.status.success) {
      throw new Error(
        `transaction ${attempt.digest} failed on chain: ${JSON.stringify(result.status.error)}`,
      );
    }
    await this.#journal.markDone(spec.intentId, attempt.digest, BigInt(result.checkpoint));
    this.#o.log.info({ intentId: spec.intentId, digest: attempt.digest }, "sui intent final");
    return attempt.digest;
  }

  /** The outcome of earlier attempts: a final digest, or undefined when none can land any more. */
  async #settlePrior(
    records: IntentRecords,
    intentId: string,
    attempts: StoredAttempt[],
  ): Promise<string | undefined> {
    for (const attempt of attempts) {
      if (!(await this.#onChain(attempt))) continue;
      const done = await this.#final(attempt.digest);
      if (done.status.success) {
        await records.markDone(intentId, attempt.digest, BigInt(done.checkpoint));
        return attempt.digest;
      }
    }
    return undefined;
  }

  /** Whether the chain knows the attempt, after sending it again when it may still execute. */
  async #onChain(attempt: StoredAttempt): Promise<boolean> {
    const { client } = this.#o;
    const tx = await findSuiTransaction(client, attempt.digest);
    this.#coins.sentElsewhere(inputIds(attempt));
    if (tx) return true;
    if (!(await ownedInputsCurrent(client, attempt.inputs))) return false;
    // Signed and stored but never executed (a crash before sending): send the same bytes.
    try {
      await this.#execute(attempt);
    } catch (err) {
      if (!STALE.test(String(err))) throw err;
    }
    return Boolean(await findSuiTransaction(client, attempt.digest));
  }

  /** Sends the signed transaction; what its effects say of the gas coin goes to the picker. */
  async #execute(attempt: StoredAttempt): Promise<void> {
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send(this.#o.client, attempt);
    } catch (err) {
      this.#coins.rejected(inputIds(attempt), STALE.test(String(err)));
      throw err;
    }
    this.#coins.executed(inputIds(attempt), (result.Transaction ?? result.FailedTransaction)?.effects);
  }

  /**
   * Builds and signs with coins reserved as they are picked (coin-picker.ts). The caller holds
   * the returned attempt's inputs busy until it is final; picked coins the attempt does not spend
   * (a failure, or the signer answering with a transaction bound earlier) are released here.
   */
  async #buildAndSign(spec: SuiIntentSpec, attempt: number): Promise<StoredAttempt> {
    const price = await this.#referenceGasPrice();
    let coins: OwnedCoin[];
    try {
      coins = await this.#coins.source(spec.source, spec.coinType, spec.amount);
    } catch (err) {
      const bound = await this.#boundEarlier(spec, attempt);
      if (bound) return bound;
      throw err;
    }
    const picked = coins.map((c) => c.objectId);
    let stored: StoredAttempt | undefined;
    try {
      const gasCoin = await this.#coins.gas(spec.gasOwner);
      picked.push(gasCoin.objectId);
      const bytes = await spec.build(buildInput(spec, coins, gasCoin, price, this.#o.gasBudget));
      const signed = await this.#o.signer.sign({
        // One transaction per signer intent id: a later attempt (the earlier can never execute)
        // is a new intent. A payout's approval names the first attempt's id only.
        intent: await this.#signerIntent(spec, attempt),
        unsignedTransaction: bytes,
        suiObjects: coins.map((coin) => coin.bcs!),
      });
      // A repeat gets the transaction bound the first time (its record here may have been lost).
      stored = storedAttempt(attempt, signed);
      return stored;
    } finally {
      const spent = new Set(stored?.inputs.map((input) => input.objectId));
      this.#coins.release(picked.filter((objectId) => !spent.has(objectId)));
    }
  }

  /**
   * The transaction the signer bound to this attempt earlier, when our record of it was lost
   * (a database restore) and the coins it spent are gone, so nothing can be built again: the
   * signer answers a repeat with its bound transaction whatever bytes it is sent.
   */
  async #boundEarlier(spec: SuiIntentSpec, attempt: number): Promise<StoredAttempt | undefined> {
    const signed = await this.#o.signer
      .sign({ intent: await this.#signerIntent(spec, attempt), unsignedTransaction: new Uint8Array() })
      .catch((err) => {
        if (err instanceof SignerRefusedError) return undefined;
        throw err;
      });
    return signed && storedAttempt(attempt, signed);
  }

  /** The attempt's intent, with the operator's retry when this attempt carries one. */
  async #signerIntent(spec: SuiIntentSpec, attempt: number): Promise<IntentInput> {
    const supersedes = attempt > 1 ? await this.#retries.read(spec.intentId, attempt) : undefined;
    return spec.intent(attemptIntentId(spec.intentId, attempt), supersedes);
  }

  async #referenceGasPrice(): Promise<bigint> {
    if (!this.#gasPrice || Date.now() - this.#gasPrice.at > 60_000) {
      const { referenceGasPrice } = await this.#o.client.getReferenceGasPrice();
      this.#gasPrice = { value: BigInt(referenceGasPrice), at: Date.now() };
    }
    return this.#gasPrice.value;
  }

  /** Waits until the transaction is in a checkpoint (final on Sui). */
  #final(digest: string): Promise<FinalTransaction> {
    return this.#landing.wait(digest, this.#o.finalityTimeoutMs);
  }
}

/** What the spec's builder takes: the source coins, and the gas coin sponsoring them. */
function buildInput(
  spec: SuiIntentSpec,
  coins: OwnedCoin[],
  gasCoin: OwnedCoin,
  price: bigint,
  budget: bigint,
): SuiSweepInput {
  return {
    depositAddress: spec.source,
    vault: spec.destination,
    coins: coins.map(({ objectId, version, digest, balance }) => ({ objectId, version, digest, balance })),
    amount: spec.amount,
    gas: {
      gasOwner: spec.gasOwner,
      payment: [{ objectId: gasCoin.objectId, version: gasCoin.version, digest: gasCoin.digest }],
      price,
      budget,
    },
  };
}

/** The signer's answer as the journal keeps it. */
function storedAttempt(attempt: number, signed: SignedIntent): StoredAttempt {
  return {
    attempt,
    digest: TransactionDataBuilder.getDigestFromBytes(signed.transaction),
    txBytes: signed.transaction,
    signatures: signed.signatures.map((s) => s.serialized),
    inputs: ownedInputs(signed.transaction),
  };
}
