// CheckpointSummary and CheckpointContents in Sui's BCS layout; the checkpoint digest is the
// typed hash of the summary and the chain id is the digest of checkpoint 0, as on a real network.
import { bcs } from "@mysten/sui/bcs";
import { typedDigest } from "./digests.js";

const GasCostSummary = bcs.struct("GasCostSummary", {
  computationCost: bcs.u64(),
  storageCost: bcs.u64(),
  storageRebate: bcs.u64(),
  nonRefundableStorageFee: bcs.u64(),
});

const CheckpointCommitment = bcs.enum("CheckpointCommitment", {
  ECMHLiveObjectSetDigest: bcs.ObjectDigest,
});

const CheckpointSummary = bcs.struct("CheckpointSummary", {
  epoch: bcs.u64(),
  sequenceNumber: bcs.u64(),
  networkTotalTransactions: bcs.u64(),
  contentDigest: bcs.ObjectDigest,
  previousDigest: bcs.option(bcs.ObjectDigest),
  epochRollingGasCostSummary: GasCostSummary,
  timestampMs: bcs.u64(),
  checkpointCommitments: bcs.vector(CheckpointCommitment),
  // No epoch ever ends on this network, so end-of-epoch data is always None.
  endOfEpochData: bcs.option(bcs.byteVector()),
  versionSpecificData: bcs.byteVector(),
});

const CheckpointContents = bcs.enum("CheckpointContents", {
  V1: bcs.struct("CheckpointContentsV1", {
    transactions: bcs.vector(
      bcs.struct("ExecutionDigests", { transaction: bcs.ObjectDigest, effects: bcs.ObjectDigest }),
    ),
    userSignatures: bcs.vector(bcs.vector(bcs.byteVector())),
  }),
});

export interface GasTotals {
  computationCost: bigint;
  storageCost: bigint;
  storageRebate: bigint;
  nonRefundableStorageFee: bigint;
}

export function encodeContents(
  transactions: ReadonlyArray<{ digest: string; effectsDigest: string; signatures: readonly Uint8Array[] }>,
): { bcs: Uint8Array; digest: string } {
  const bytes = CheckpointContents.serialize({
    V1: {
      transactions: transactions.map((tx) => ({ transaction: tx.digest, effects: tx.effectsDigest })),
      userSignatures: transactions.map((tx) => [...tx.signatures]),
    },
  }).toBytes();
  return { bcs: bytes, digest: typedDigest("CheckpointContents", bytes) };
}

export function encodeSummary(summary: {
  epoch: bigint;
  sequenceNumber: bigint;
  networkTotalTransactions: bigint;
  contentDigest: string;
  previousDigest: string | undefined;
  rollingGas: GasTotals;
  timestampMs: number;
}): { bcs: Uint8Array; digest: string } {
  const bytes = CheckpointSummary.serialize({
    epoch: summary.epoch,
    sequenceNumber: summary.sequenceNumber,
    networkTotalTransactions: summary.networkTotalTransactions,
    contentDigest: summary.contentDigest,
    previousDigest: summary.previousDigest ?? null,
    epochRollingGasCostSummary: summary.rollingGas,
    timestampMs: BigInt(summary.timestampMs),
    checkpointCommitments: [],
    endOfEpochData: null,
    versionSpecificData: new Uint8Array(),
  }).toBytes();
  return { bcs: bytes, digest: typedDigest("CheckpointSummary", bytes) };
}
