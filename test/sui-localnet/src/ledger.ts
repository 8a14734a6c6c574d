// The network's state: coin objects with versions and digests, executed transactions, and the
// checkpoints that make them final. Execution is serial, so every transaction sees the effects
// of the ones before it, as on a single validator.
import { bcs } from "@mysten/sui/bcs";
import { normalizeSuiAddress, toBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import { encodeContents, encodeSummary, type GasTotals } from "./checkpoint-bcs.js";
import { type StoredCoin, storeCoin } from "./coin-object.js";
import type { CoinRegistry } from "./coins.js";
import { transactionDigest, typedDigest } from "./digests.js";
import { ed25519Signer } from "./ed25519.js";
import { encodeEffects } from "./effects.js";
import { type ExecutionOutcome, executeTransaction, type TransactionDataV1 } from "./executor.js";
import { TransactionRejected } from "./rejection.js";

export interface TransactionRecord {
  digest: string;
  bcs: Uint8Array;
  data: TransactionDataV1;
  signatures: Uint8Array[];
  outcome: ExecutionOutcome;
  effects: { bcs: Uint8Array; digest: string };
  /** Set once a checkpoint includes the transaction; from then on it is final. */
  checkpoint?: bigint;
  timestampMs?: number;
  /** Position inside its checkpoint. */
  transactionIndex?: bigint;
}

export interface CheckpointRecord {
  sequenceNumber: bigint;
  digest: string;
  summaryBcs: Uint8Array;
  contents: { bcs: Uint8Array; digest: string };
  previousDigest?: string;
  timestampMs: number;
  networkTotalTransactions: bigint;
  rollingGas: GasTotals;
  transactions: TransactionRecord[];
}

export interface Ledger {
  readonly chainId: string;
  readonly epoch: bigint;
  readonly referenceGasPrice: bigint;
  readonly computationUnits: bigint;
  readonly coins: CoinRegistry;
  readonly genesisTimestampMs: number;
  getObject(objectId: string, version?: bigint): StoredCoin | undefined;
  /** The coins an address owns, optionally of one coin type, ordered by object id. */
  ownedCoins(owner: string, coinType?: string): StoredCoin[];
  getTransaction(digest: string): TransactionRecord | undefined;
  getCheckpoint(sequenceNumber: bigint): CheckpointRecord | undefined;
  getCheckpointByDigest(digest: string): CheckpointRecord | undefined;
  latestCheckpoint(): CheckpointRecord;
  /** Verifies signatures, executes and applies; a repeat of an executed transaction returns it again. */
  execute(transactionBcs: Uint8Array, signatures: readonly Uint8Array[]): Promise<TransactionRecord>;
  /** Runs a transaction against the current state without signatures and without applying it. */
  simulate(transactionBcs: Uint8Array): TransactionRecord;
  /** Seals the transactions executed since the previous checkpoint into a new one. */
  produceCheckpoint(nowMs?: number): CheckpointRecord;
  onCheckpoint(listener: (checkpoint: CheckpointRecord) => void): () => void;
  /** Puts the address on the coin type's deny list (`denied: true`) or takes it off. */
  setDenied(address: string, coinType: string, denied: boolean): void;
}

export interface LedgerOptions {
  coins: CoinRegistry;
  /** Coins that exist from genesis (the faucet's treasury). */
  genesisCoins: ReadonlyArray<{ objectId: string; owner: string; coinType: string; balance: bigint }>;
  referenceGasPrice?: bigint;
  computationUnits?: bigint;
  nowMs?: number;
}

const ZERO_GAS: GasTotals = {
  computationCost: 0n,
  storageCost: 0n,
  storageRebate: 0n,
  nonRefundableStorageFee: 0n,
};

function parseTransaction(transactionBcs: Uint8Array): TransactionDataV1 {
  let parsed: ReturnType<typeof bcs.TransactionData.parse>;
  try {
    parsed = bcs.TransactionData.parse(transactionBcs);
  } catch (error) {
    throw new TransactionRejected(
      "InvalidTransactionBytes",
      error instanceof Error ? error.message : "undecodable",
    );
  }
  if (!parsed.V1)
    throw new TransactionRejected("InvalidTransactionBytes", "only TransactionData V1 is known");
  return parsed.V1;
}

export function createLedger(options: LedgerOptions): Ledger {
  const referenceGasPrice = options.referenceGasPrice ?? 1000n;
  const computationUnits = options.computationUnits ?? 1000n;
  const epoch = 0n;
  const suiType = options.coins.bySymbol("SUI").coinType;

  const current = new Map<string, StoredCoin>();
  const history = new Map<string, StoredCoin>();
  const owned = new Map<string, Set<string>>();
  const transactions = new Map<string, TransactionRecord>();
  const checkpoints: CheckpointRecord[] = [];
  const checkpointsByDigest = new Map<string, CheckpointRecord>();
  const listeners = new Set<(checkpoint: CheckpointRecord) => void>();
  let pending: TransactionRecord[] = [];
  let rollingGas = ZERO_GAS;
  let networkTotal = 0n;
  const denyList = new Set<string>();

  const put = (coin: StoredCoin) => {
    const previous = current.get(coin.objectId);
    if (previous) owned.get(previous.owner)?.delete(coin.objectId);
    current.set(coin.objectId, coin);
    history.set(`${coin.objectId}@${coin.version}`, coin);
    let set = owned.get(coin.owner);
    if (!set) {
      set = new Set();
      owned.set(coin.owner, set);
    }
    set.add(coin.objectId);
  };
  const remove = (objectId: string) => {
    const previous = current.get(objectId);
    if (!previous) return;
    owned.get(previous.owner)?.delete(objectId);
    current.delete(objectId);
  };

  const genesisDigest = typedDigest("Genesis", new TextEncoder().encode(options.coins.packageId));
  for (const coin of options.genesisCoins) {
    put(storeCoin({ ...coin, version: 1n, previousTransaction: genesisDigest }));
  }

  const seal = (nowMs: number): CheckpointRecord => {
    const included = pending;
    pending = [];
    const sequenceNumber = BigInt(checkpoints.length);
    const previous = checkpoints.at(-1);
    for (const tx of included) {
      rollingGas = {
        ...rollingGas,
        computationCost: rollingGas.computationCost + tx.outcome.computationCost,
      };
    }
    networkTotal += BigInt(included.length);
    const contents = encodeContents(
      included.map((tx) => ({
        digest: tx.digest,
        effectsDigest: tx.effects.digest,
        signatures: tx.signatures,
      })),
    );
    const summary = encodeSummary({
      epoch,
      sequenceNumber,
      networkTotalTransactions: networkTotal,
      contentDigest: contents.digest,
      previousDigest: previous?.digest,
      rollingGas,
      timestampMs: nowMs,
    });
    included.forEach((tx, index) => {
      tx.checkpoint = sequenceNumber;
      tx.timestampMs = nowMs;
      tx.transactionIndex = BigInt(index);
    });
    const checkpoint: CheckpointRecord = {
      sequenceNumber,
      digest: summary.digest,
      summaryBcs: summary.bcs,
      contents,
      previousDigest: previous?.digest,
      timestampMs: nowMs,
      networkTotalTransactions: networkTotal,
      rollingGas,
      transactions: included,
    };
    checkpoints.push(checkpoint);
    checkpointsByDigest.set(checkpoint.digest, checkpoint);
    return checkpoint;
  };

  const genesis = seal(options.nowMs ?? Date.now());

  const run = (transactionBcs: Uint8Array, signatures: readonly Uint8Array[]): TransactionRecord => {
    const data = parseTransaction(transactionBcs);
    const digest = transactionDigest(transactionBcs);
    const outcome = executeTransaction({
      digest,
      data,
      getCoin: (objectId) => current.get(objectId),
      referenceGasPrice,
      computationUnits,
      suiType,
      denied: (address, coinType) => denyList.has(`${address}|${coinType}`),
    });
    const effects = encodeEffects(digest, outcome, epoch);
    return { digest, bcs: transactionBcs, data, signatures: [...signatures], outcome, effects };
  };

  return {
    chainId: genesis.digest,
    epoch,
    referenceGasPrice,
    computationUnits,
    coins: options.coins,
    genesisTimestampMs: genesis.timestampMs,
    getObject(objectId, version) {
      return version === undefined ? current.get(objectId) : history.get(`${objectId}@${version}`);
    },
    ownedCoins(owner, coinType) {
      const ids = [...(owned.get(owner) ?? [])].sort();
      return ids
        .map((id) => current.get(id)!)
        .filter((coin) => coinType === undefined || coin.coinType === coinType);
    },
    getTransaction: (digest) => transactions.get(digest),
    getCheckpoint: (sequenceNumber) =>
      sequenceNumber < BigInt(checkpoints.length) ? checkpoints[Number(sequenceNumber)] : undefined,
    getCheckpointByDigest: (digest) => checkpointsByDigest.get(digest),
    latestCheckpoint: () => checkpoints.at(-1)!,
    async execute(transactionBcs, signatures) {
      const digest = transactionDigest(transactionBcs);
      const executed = transactions.get(digest);
      if (executed) return executed;
      const data = parseTransaction(transactionBcs);
      const required = new Set([data.sender, data.gasData.owner]);
      if (signatures.length !== required.size) {
        throw new TransactionRejected(
          "SignatureMismatch",
          `expected ${required.size} signature(s) (sender${required.size > 1 ? " and gas owner" : ""}), got ${signatures.length}`,
        );
      }
      const signers = new Set<string>();
      for (const signature of signatures) {
        try {
          const ed25519 = ed25519Signer(transactionBcs, signature);
          signers.add(
            ed25519 ?? (await verifyTransactionSignature(transactionBcs, toBase64(signature))).toSuiAddress(),
          );
        } catch (error) {
          throw new TransactionRejected(
            "InvalidSignature",
            `a signature does not verify: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      for (const address of required) {
        if (!signers.has(address)) {
          throw new TransactionRejected("SignatureMismatch", `no valid signature from ${address}`);
        }
      }
      // Signature checks awaited; from here to the end nothing yields, so the state is consistent.
      const again = transactions.get(digest);
      if (again) return again;
      const record = run(transactionBcs, signatures);
      for (const change of record.outcome.changes) {
        if (change.output) put(change.output);
        else remove(change.objectId);
      }
      transactions.set(digest, record);
      pending.push(record);
      return record;
    },
    simulate(transactionBcs) {
      return run(transactionBcs, []);
    },
    produceCheckpoint(nowMs = Date.now()) {
      const checkpoint = seal(nowMs);
      for (const listener of listeners) listener(checkpoint);
      return checkpoint;
    },
    onCheckpoint(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setDenied(address, coinType, denied) {
      const key = `${normalizeSuiAddress(address)}|${coinType}`;
      if (denied) denyList.add(key);
      else denyList.delete(key);
    },
  };
}
