import type { KeyObject } from "node:crypto";
import { createIntentRetries, type SettlementAdapter } from "@gateway/chain-kit";
import { buildSuiSweep, buildSuiTransfer, type SuiCoinRef } from "@gateway/chain-tx";
import type { Sql } from "@gateway/db";
import type { Coin, Mode, RefundWork, SweepWork } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import {
  type IntentInput,
  type ServiceAddressBook,
  type SignedIntent,
  type SignerClient,
  SignerRefusedError,
  type SupersessionInput,
  signApproval,
} from "@gateway/signer-client";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { TransactionDataBuilder } from "@mysten/sui/transactions";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import pLimit from "p-limit";
import { createFinalityWatch, type FinalTransaction } from "./finality-watch.js";
import { createGasCoins } from "./gas-coins.js";
import {
  attemptIntentId,
  createIntentStore,
  type IntentRecords,
  type StoredAttempt,
} from "./intent-store.js";
import { listOwnedCoins } from "./owned-coins.js";
import { findSuiTransaction, ownedInputs, ownedInputsCurrent } from "./transaction-outcome.js";

/** Sui's settlement adapter (the contract every chain's follows, packages/chain-kit). */
export type SuiSettlement = SettlementAdapter<"sui">;

export interface SuiSettlementOptions {
  sql: Sql;
  client: SuiGrpcClient;
  signer: SignerClient;
  log: Logger;
  /** Coin type per coin this chain carries. */
  coinTypes: Partial<Record<Coin, string>>;
  /** Settlement's refund approval key (the signer trusts its public half for refunds only). */
  approver: { keyId: string; key: KeyObject };
  /** MIST; must stay under the signer's SIGNER_SUI_MAX_GAS_BUDGET. */
  gasBudget?: bigint;
  /** How long to wait for a sent transaction's checkpoint before giving up (and retrying later). */
  finalityTimeoutMs?: number;
  /** Between two reads of the transactions waiting for a checkpoint (finality-watch.ts). */
  finalityPollMs?: number;
  /**
   * Intents deciding at once (default 4). Each holds a connection for its lock, and its signer
   * call takes another from the pool (the audit head, withAuditHeadCheck): at most half of
   * `sql`'s connections, or the holders can take them all and wait on each other.
   */
  decidingAtOnce?: number;
}

/** Rejections that mean an input moved on since the transaction was built: rebuild and re-sign. */
const STALE =
  /ObjectVersionUnavailableForConsumption|ObjectNotFound|InvalidObjectDigest|IncorrectUserSignature/;
const ROUNDS = 6;

interface IntentSpec {
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
  /** A sweep sends from a deposit address; refunds from the vault. */
  build: typeof buildSuiSweep;
}

/**
 * Sui settlement over the signer: sponsored sweeps (sender the deposit address, gas from the gas
 * wallet) and refunds from the vault. The signer refunds only from the vault, so a refund owed
 * from a deposit address first sweeps that amount to the vault (its own intent), then pays it out.
 * Idempotent per intent: every signed transaction is stored before it is sent, and a retry first
 * asks the chain about the stored ones, re-sends one whose inputs are still current, and only
 * builds anew when none of them can ever execute.
 */
export function createSuiSettlement(options: SuiSettlementOptions): SuiSettlement {
  const { sql, client, signer, log, approver } = options;
  const gasBudget = options.gasBudget ?? 10_000_000n;
  const finalityTimeoutMs = options.finalityTimeoutMs ?? 60_000;
  const store = createIntentStore(sql);
  const retries = createIntentRetries(sql, "sui");
  const deciding = pLimit(options.decidingAtOnce ?? 4);
  /** Objects an in-flight transaction of this process uses; other intents pick other coins. */
  const busy = new Set<string>();
  const release = (objectIds: Iterable<string>) => {
    for (const objectId of objectIds) busy.delete(objectId);
  };
  /** Objects the signer reported bound to another replica's intent, skipped for a while. */
  const holdFor = (objectId: string, ms: number) => {
    busy.add(objectId);
    setTimeout(() => busy.delete(objectId), ms).unref();
  };
  let book: ServiceAddressBook | undefined;
  let gasPrice: { value: bigint; at: number } | undefined;

  async function wallets(mode: Mode) {
    book ??= await signer.getServiceAddresses();
    const w = book.sui[mode];
    return { vault: normalizeSuiAddress(w.vault), gas: normalizeSuiAddress(w.gas) };
  }

  async function referenceGasPrice() {
    if (!gasPrice || Date.now() - gasPrice.at > 60_000) {
      gasPrice = { value: BigInt((await client.getReferenceGasPrice()).referenceGasPrice), at: Date.now() };
    }
    return gasPrice.value;
  }

  function coinType(coin: Coin): string {
    const type = options.coinTypes[coin];
    if (!type) throw new Error(`no Sui coin type configured for ${coin}`);
    return normalizeStructTag(type);
  }

  /** Largest free coins first until they cover the amount; waits while others hold what is missing. */
  async function pickCoins(owner: string, type: string, amount: bigint, what: string) {
    for (let wait = 0; ; wait++) {
      // With their BCS: the signer checks a sweep's coins against their contents.
      const coins = (await listOwnedCoins(client, owner, type, { bcs: true })).sort((a, b) =>
        b.balance > a.balance ? 1 : -1,
      );
      const free = coins.filter((c) => !busy.has(c.objectId));
      const picked: typeof coins = [];
      let sum = 0n;
      for (const coin of free) {
        if (sum >= amount) break;
        picked.push(coin);
        sum += coin.balance;
      }
      if (sum >= amount) {
        // Taken before the next await: intents picking at the same moment get other coins.
        for (const coin of picked) busy.add(coin.objectId);
        return picked;
      }
      const total = coins.reduce((s, c) => s + c.balance, 0n);
      if (total < amount || wait >= 100) {
        throw new Error(`${what} ${owner} holds ${total} of ${type}, ${amount} needed`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The gas wallet's coins, known from the effects of what this process spends (gas-coins.ts). */
  const gasCoins = createGasCoins({
    list: (owner) => listOwnedCoins(client, owner, coinType("SUI")),
    budget: gasBudget,
    busy,
  });

  const transaction = (digest: string) => findSuiTransaction(client, digest);

  const finality = createFinalityWatch({ client, log, intervalMs: options.finalityPollMs });
  /** Waits until the transaction is in a checkpoint (final on Sui). */
  const final = (digest: string): Promise<FinalTransaction> => finality.wait(digest, finalityTimeoutMs);

  const inputsCurrent = (attempt: StoredAttempt) => ownedInputsCurrent(client, attempt.inputs);
  const inputIds = (attempt: StoredAttempt) => attempt.inputs.map((input) => input.objectId);

  /**
   * Sends the signed transaction. Its effects name the gas coin's next version, which the next
   * sweep can then use without listing the gas wallet; when they do not, the coin is forgotten.
   */
  async function execute(attempt: StoredAttempt): Promise<void> {
    let result: Awaited<ReturnType<typeof client.executeTransaction<{ effects: true }>>>;
    try {
      result = await client.executeTransaction({
        transaction: attempt.txBytes,
        signatures: attempt.signatures,
        include: { effects: true },
      });
    } catch (err) {
      // Rejected: an input moved on (read the wallet again), or we cannot tell what happened.
      if (STALE.test(String(err))) gasCoins.forgetAll();
      else gasCoins.forget(inputIds(attempt));
      throw err;
    }
    const effects = (result.Transaction ?? result.FailedTransaction)?.effects;
    const gasObject = effects?.gasObject;
    if (gasObject?.outputVersion && gasObject.outputDigest) {
      const used = effects.gasUsed;
      gasCoins.spent(normalizeSuiAddress(gasObject.objectId), {
        version: gasObject.outputVersion,
        digest: gasObject.outputDigest,
        charged: BigInt(used.computationCost ?? 0) + BigInt(used.storageCost ?? 0),
      });
    } else gasCoins.forget(inputIds(attempt));
  }

  /** The outcome of earlier attempts: a final digest, or undefined when none can land any more. */
  async function settlePrior(
    records: IntentRecords,
    intentId: string,
    attempts: StoredAttempt[],
  ): Promise<string | undefined> {
    for (const attempt of attempts) {
      let tx = await transaction(attempt.digest);
      // Sent before (by this process or another): its gas coin's version is not ours to know.
      gasCoins.forget(inputIds(attempt));
      if (!tx && (await inputsCurrent(attempt))) {
        // Signed and stored but never executed (a crash before sending): send the same bytes.
        try {
          await execute(attempt);
        } catch (err) {
          if (!STALE.test(String(err))) throw err;
        }
        tx = await transaction(attempt.digest);
      }
      if (!tx) continue;
      const done = await final(attempt.digest);
      if (done.status.success) {
        await records.markDone(intentId, attempt.digest, BigInt(done.checkpoint));
        return attempt.digest;
      }
    }
    return undefined;
  }

  /** The attempt's intent, with the operator's retry when this attempt carries one. */
  async function signerIntent(spec: IntentSpec, attempt: number): Promise<IntentInput> {
    const supersedes = attempt > 1 ? await retries.read(spec.intentId, attempt) : undefined;
    return spec.intent(attemptIntentId(spec.intentId, attempt), supersedes);
  }

  /**
   * The transaction the signer bound to this attempt earlier, when our record of it was lost
   * (a database restore) and the coins it spent are gone, so nothing can be built again: the
   * signer answers a repeat with its bound transaction whatever bytes it is sent.
   */
  async function boundEarlier(spec: IntentSpec, attempt: number): Promise<StoredAttempt | undefined> {
    const signed = await signer
      .sign({ intent: await signerIntent(spec, attempt), unsignedTransaction: new Uint8Array() })
      .catch((err) => {
        if (err instanceof SignerRefusedError) return undefined;
        throw err;
      });
    return signed && storedAttempt(attempt, signed);
  }

  function storedAttempt(attempt: number, signed: SignedIntent): StoredAttempt {
    return {
      attempt,
      digest: TransactionDataBuilder.getDigestFromBytes(signed.transaction),
      txBytes: signed.transaction,
      signatures: signed.signatures.map((s) => s.serialized),
      inputs: ownedInputs(signed.transaction),
    };
  }

  /**
   * Builds and signs with coins reserved in `busy` as they are picked (pickCoins, gasCoins.pick).
   * The caller holds the returned attempt's inputs busy until it is final; picked coins the
   * attempt does not spend (a failure, or the signer answering with a transaction bound earlier)
   * are released here.
   */
  async function buildAndSign(spec: IntentSpec, mode: Mode, attempt: number): Promise<StoredAttempt> {
    const { gas } = await wallets(mode);
    const price = await referenceGasPrice();
    let coins: Awaited<ReturnType<typeof pickCoins>>;
    try {
      coins = await pickCoins(spec.source, spec.coinType, spec.amount, "source");
    } catch (err) {
      const bound = await boundEarlier(spec, attempt);
      if (bound) return bound;
      throw err;
    }
    const picked = coins.map((c) => c.objectId);
    let stored: StoredAttempt | undefined;
    try {
      const gasCoin = await gasCoins.pick(gas);
      picked.push(gasCoin.objectId);
      const refs: SuiCoinRef[] = coins.map(({ objectId, version, digest, balance }) => ({
        objectId,
        version,
        digest,
        balance,
      }));
      const bcsList = coins.map((coin) => coin.bcs!);
      const bytes = await spec.build({
        depositAddress: spec.source,
        vault: spec.destination,
        coins: refs,
        amount: spec.amount,
        gas: {
          gasOwner: gas,
          payment: [{ objectId: gasCoin.objectId, version: gasCoin.version, digest: gasCoin.digest }],
          price,
          budget: gasBudget,
        },
      });
      const signed = await signer.sign({
        // One transaction per signer intent id: a later attempt (the earlier can never execute)
        // is a new intent. A payout's approval names the first attempt's id only.
        intent: await signerIntent(spec, attempt),
        unsignedTransaction: bytes,
        suiObjects: bcsList,
      });
      // A repeat gets the transaction bound the first time (its record here may have been lost).
      stored = storedAttempt(attempt, signed);
      return stored;
    } finally {
      const spent = new Set(stored?.inputs.map((input) => input.objectId));
      release(picked.filter((objectId) => !spent.has(objectId)));
    }
  }

  /**
   * Under the intent's lock: decide, build, sign, record and send. The wait for the checkpoint
   * comes after the lock, so an intent holds a database connection only while it decides, not
   * for the chain's finality; a second runner of the same intent meanwhile finds the recorded
   * attempt on chain and waits for the same transaction (settlePrior).
   */
  async function run(spec: IntentSpec, mode: Mode): Promise<string> {
    const sent = await deciding(() =>
      store.exclusive<{ final: string } | { sent: StoredAttempt }>(spec.intentId, async (locked) => {
        // Both asked in one round trip (pipelined on the lock's connection).
        const [done, stored] = await Promise.all([
          locked.done(spec.intentId),
          locked.attempts(spec.intentId),
        ]);
        if (done) return { final: done };
        // Newest first, as stored; this runner's own attempts join it as it records them.
        const previous = [...stored];
        for (let round = 0; round < ROUNDS; round++) {
          const prior = await settlePrior(locked, spec.intentId, previous);
          if (prior) return { final: prior };
          let attempt: StoredAttempt;
          try {
            attempt = await buildAndSign(spec, mode, (previous[0]?.attempt ?? 0) + 1);
          } catch (err) {
            // Another replica's intent holds one of these coin versions: pick others.
            if (!(err instanceof SignerRefusedError && err.refusal.code === "INPUT_IN_USE")) throw err;
            const held = /sui-object:(0x[0-9a-f]+)@/.exec(err.refusal.reason)?.[1];
            if (held) holdFor(held, 5_000);
            // Another replica spends from the same wallets: what we know of them may be behind.
            gasCoins.forgetAll();
            continue;
          }
          for (const input of attempt.inputs) busy.add(input.objectId);
          let inFlight = false;
          try {
            await locked.record(spec.intentId, attempt);
            previous.unshift(attempt);
            try {
              await execute(attempt);
            } catch (err) {
              if (STALE.test(String(err))) {
                log.info({ intentId: spec.intentId, err: String(err) }, "sui inputs moved on; rebuilding");
                continue;
              }
              throw err;
            }
            inFlight = true;
            return { sent: attempt };
          } finally {
            if (!inFlight) release(inputIds(attempt));
          }
        }
        throw new Error(`intent ${spec.intentId}: inputs kept moving, giving up for now`);
      }),
    );
    if ("final" in sent) return sent.final;
    const attempt = sent.sent;
    let result: Awaited<ReturnType<typeof final>>;
    try {
      result = await final(attempt.digest);
    } finally {
      // The coins stay ours until the checkpoint (their next versions come from this
      // transaction), and not a moment longer: runners holding the lock's connection may be
      // waiting for one, and this runner needs a pool connection for what follows.
      release(inputIds(attempt));
    }
    if (!result.status.success) {
      throw new Error(
        `transaction ${attempt.digest} failed on chain: ${JSON.stringify(result.status.error)}`,
      );
    }
    await store.markDone(spec.intentId, attempt.digest, BigInt(result.checkpoint));
    log.info({ intentId: spec.intentId, digest: attempt.digest }, "sui intent final");
    return attempt.digest;
  }

  async function sweepToVault(intentId: string, work: SweepWork | RefundWork, amount: bigint) {
    const { vault } = await wallets(work.mode);
    const type = coinType(work.coin);
    return run(
      {
        intentId,
        intent: (id) => ({
          intentId: id,
          kind: "sweep",
          chain: "sui",
          mode: work.mode,
          asset: type,
          amount,
          depositIndex: work.derivationIndex,
        }),
        coinType: type,
        source: normalizeSuiAddress(work.depositAddress),
        destination: vault,
        amount,
        build: buildSuiSweep,
      },
      work.mode,
    );
  }

  /** Vault → destination for a refund or payout intent (a payout carries the API's approval). */
  async function payFromVault(
    work: { intentId: string; mode: Mode; asset: string; amount: bigint; destination: string },
    intent: IntentSpec["intent"],
  ) {
    const { vault } = await wallets(work.mode);
    return run(
      {
        intentId: work.intentId,
        intent,
        coinType: work.asset,
        source: vault,
        destination: work.destination,
        amount: work.amount,
        build: (input) =>
          buildSuiTransfer({
            sender: input.depositAddress,
            recipient: input.vault,
            coins: input.coins,
            amount: input.amount,
            gas: input.gas,
          }),
      },
      work.mode,
    );
  }

  return {
    chain: "sui",

    async payout(work) {
      const asset = coinType(work.coin);
      const destination = normalizeSuiAddress(work.destination);
      const txid = await payFromVault({ ...work, asset, destination }, (id) => ({
        intentId: id,
        kind: "payout",
        chain: "sui",
        mode: work.mode,
        asset,
        amount: work.amount,
        destination,
        reference: work.payoutId,
        ...(work.merchantId ? { merchantId: work.merchantId } : {}),
        ...(work.approval ? { approval: work.approval } : {}),
      }));
      return { txid };
    },

    async sweep(work) {
      return { txid: await sweepToVault(work.intentId, work, work.amount) };
    },

    async refund(work) {
      const asset = coinType(work.coin);
      // The signer pays refunds from the vault only: money still on the deposit address goes there first.
      if (work.from === "deposit") await sweepToVault(`sweep:${work.refundId}`, work, work.amount);
      const destination = normalizeSuiAddress(work.to);
      const txid = await payFromVault({ ...work, asset, destination }, (id, supersedes) => {
        // Settlement approves each attempt, a retry's `supersedes` with it.
        const intent: IntentInput = {
          intentId: id,
          kind: "refund",
          chain: "sui",
          mode: work.mode,
          asset,
          amount: work.amount,
          destination,
          reference: work.paymentId,
          ...attestationOf(work),
          ...(supersedes && { supersedes }),
        };
        return {
          ...intent,
          approval: signApproval({ intent, keyId: approver.keyId, privateKey: approver.key }),
        };
      });
      return { txid };
    },
  };
}

/** The refund intent's attestation: the transfer as the watcher signed it, in Sui's spelling. */
function attestationOf(work: RefundWork) {
  const a = work.attestation;
  if (!a) return {};
  return {
    attestation: {
      keyId: a.keyId,
      signature: new Uint8Array(Buffer.from(a.signature, "base64")),
      transferId: a.transferId,
      depositAddress: normalizeSuiAddress(work.depositAddress),
      sender: normalizeSuiAddress(work.to),
      amount: a.transferAmount,
    },
  };
}
