// Deposit reports as the watcher publishes them to `<p>.cmd.deposit.sui`, final ones attested (as
// chain-solana's watcher/deposit-reports.ts). Sui's carry the partition whose cursor they ride
// with: they reach the bus through the outbox, in the transaction that advances it.
import type { DepositReport } from "@gateway/contracts";
import type { Coin } from "@gateway/domain";
import { signAttestation } from "@gateway/signer-client";
import type { WatcherBasics } from "@gateway/watcher-kit";
import { normalizeStructTag } from "@mysten/sui/utils";
import type { WatchedCheckpoint } from "./checkpoint-source.js";
import { type CoinTypes, depositsOf } from "./deposits-in-transaction.js";
import { partitionOfAddress } from "./partitions.js";

export type DepositStage = "seen" | "final";

export type PartitionedReport = DepositReport & { partition: number };

export interface DepositReportsOptions {
  /** Coin types as configured, per coin: the attestation's asset. */
  coinTypes: Partial<Record<Coin, string>>;
  /** The same, normalized, to match balance changes. */
  matching: CoinTypes;
  attestor?: WatcherBasics["attestor"];
  /** The partition of an open address, or undefined when it is not open. */
  partitionOfOpen: (address: string) => number | undefined;
}

/** A checkpoint's reports at `stage`, for open addresses of the partitions in `behind`. */
export type DepositReporter = (
  checkpoint: WatchedCheckpoint,
  behind: Set<number>,
  stage: DepositStage,
) => PartitionedReport[];

export function depositReporter(options: DepositReportsOptions): DepositReporter {
  const { matching, partitionOfOpen } = options;
  return (checkpoint, behind, stage) => {
    const reports: PartitionedReport[] = [];
    for (const tx of checkpoint.transactions) {
      for (const report of depositsOf(tx, matching, (a) => {
        const p = partitionOfOpen(a);
        return p !== undefined && behind.has(p);
      })) {
        reports.push({
          ...attested(options, report, stage),
          stage,
          partition: partitionOfAddress(report.address),
        });
      }
    }
    return reports;
  };
}

/** Final reports carry the watcher's signature over the transfer; the signer refunds only those. */
function attested(options: DepositReportsOptions, report: DepositReport, stage: DepositStage): DepositReport {
  const attestor = options.attestor;
  const asset = options.coinTypes[report.coin];
  if (stage !== "final" || !attestor || !asset) return report;
  return {
    ...report,
    attestation: signAttestation(
      {
        chain: "sui",
        mode: "live",
        asset: normalizeStructTag(asset),
        transferId: report.transfer_id,
        depositAddress: report.address,
        sender: report.sender,
        amount: BigInt(report.amount),
      },
      attestor,
    ),
  };
}
