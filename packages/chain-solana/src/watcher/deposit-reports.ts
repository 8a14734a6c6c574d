// Deposit reports as the watcher publishes them to `<p>.cmd.deposit.solana`, final ones attested.
import { type Bus, busEpochReader, publishWithId } from "@gateway/bus";
import { type DepositReport, depositMessageId } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { counterIn, type Registry } from "@gateway/metrics";
import { signAttestation } from "@gateway/signer-client";
import type { WatcherBasics } from "@gateway/watcher-kit";
import type { FoundDeposit } from "./deposits-in-transaction.js";
import type { DepositStage } from "./signature-tracker.js";

export interface DepositReportsOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  mints: { USDC: string; USDT: string };
  attestor?: WatcherBasics["attestor"];
  metrics?: Registry;
}

/** The signature tracker's `publish`: one report per deposit and stage, under its message id. */
export function depositReporter(options: DepositReportsOptions) {
  const { bus, log, mints, attestor } = options;
  const subject = bus.topology.subjects.deposit("solana");
  const busEpoch = busEpochReader(options.sql);
  const reported = counterIn(options.metrics, {
    name: "gateway_deposits_detected_total",
    help: "Deposit reports published, by stage",
    labelNames: ["chain", "stage"],
  });
  return async (deposit: FoundDeposit, signature: string, stage: DepositStage) => {
    const report: DepositReport = {
      chain: "solana",
      address: deposit.address,
      transfer_id: `solana:${signature}:${deposit.instructionIndex}`,
      coin: deposit.coin,
      amount: deposit.amount.toString(),
      sender: deposit.sender,
      stage,
    };
    if (stage === "final" && attestor) {
      report.attestation = signAttestation(
        {
          chain: "solana",
          mode: "live",
          asset: deposit.coin === "SOL" ? "SOL" : mints[deposit.coin as "USDC" | "USDT"],
          transferId: report.transfer_id,
          depositAddress: report.address,
          sender: report.sender,
          amount: deposit.amount,
        },
        attestor,
      );
    }
    await publishWithId(bus.js, subject, report, depositMessageId(report), await busEpoch());
    reported?.inc({ chain: "solana", stage });
    log.info({ address: deposit.address, signature, stage, amount: report.amount }, "deposit reported");
  };
}
