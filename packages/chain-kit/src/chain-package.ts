// What a chain's package (packages/chain-<chain>) gives the runtime, in one object: every process
// that runs chain code takes it from there through packages/chain-packages' CHAIN_PACKAGES. Each
// part is loaded when a process asks for it, so a process loads only the code it runs: a watcher
// its own chain's watcher and no settlement code, settlement no watcher code.
import type { KeyObject } from "node:crypto";
import type { ChainProbe } from "@gateway/chain-preflight";
import type { AfterRestoreConfig, RetryRefundConfig, SettlementConfig } from "@gateway/config";
import type { Chain, Coin, TransactionOutcome } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { ChainPayoutWork, Mode, RefundWork, SweepWork } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import type { ServiceAddressBook, SignerClient } from "@gateway/signer-client";
import type { ChainWatcherModule, WatcherServiceConfig } from "@gateway/watcher-kit";
import type { z } from "zod";
import type { Finding } from "./finding.js";
import type { FailedIntentRetry } from "./intent-retries.js";

export interface ChainPackage<C extends Chain = Chain> {
  /** The watcher service's module for the chain (services/watcher, `WATCHER_CHAIN=<chain>`). */
  watcher(): Promise<ChainWatcherModule<C>>;
  /** Settlement's adapter for the chain (services/settlement). */
  settlement(): Promise<ChainSettlementModule<C>>;
  /** What the runbook after a restore of PostgreSQL asks of the chain (scripts/after-restore.ts). */
  restore(): Promise<ChainRestoreModule>;
  /** The operator's retry of a refund that failed on chain (scripts/retry-refund.ts). */
  retry(): Promise<ChainRetryModule>;
  /** The chain's checks in `gateway doctor` (scripts/doctor). */
  doctor(): Promise<ChainDoctorModule>;
}

/**
 * One chain's settlement: builds the transaction, has the signer sign it for the intent, sends it
 * and waits for finality, once per intent (the contract is settlement's ChainSettlement and
 * ChainPayout, services/settlement/src/chains). Sweeps, refunds and payouts run through the same
 * intent runner.
 */
export interface SettlementAdapter<C extends Chain = Chain> {
  chain: C;
  sweep(work: SweepWork): Promise<{ txid: string }>;
  refund(work: RefundWork): Promise<{ txid: string }>;
  /** `gasSpent`: native base units (lamports, MIST) the gas wallet paid, when the chain says. */
  payout(work: ChainPayoutWork): Promise<{ txid: string; gasSpent?: bigint }>;
}

/** What settlement builds a chain's adapter from: its shared pieces. */
export interface SettlementDeps {
  config: SettlementConfig;
  sql: Sql;
  log: Logger;
  signer: SignerClient;
  /** Settlement's approver key: the signer wants an approval on every refund. */
  approver: { keyId: string; key: KeyObject };
}

export interface ChainSettlementModule<C extends Chain = Chain> {
  /** Whether settlement's configuration names the chain's endpoint: live settlement runs on it. */
  configured(config: SettlementConfig): boolean;
  /** The adapter; only for a configured chain. */
  create(deps: SettlementDeps): SettlementAdapter<C>;
  /** The chain preflight of the endpoint `create` uses; only for a configured chain. */
  probe(config: SettlementConfig): ChainProbe;
}

export interface ChainRestoreModule {
  /** The coin an asset is on the chain, as the signer spells assets and the configuration names them. */
  coins(config: AfterRestoreConfig): (asset: string) => Coin | undefined;
  /** What became of a signed transaction, when the configuration names the chain's endpoint. */
  outcomes(
    config: AfterRestoreConfig,
  ): ((txid: string, transaction: Uint8Array) => Promise<TransactionOutcome>) | undefined;
}

/** What the operator's retry runs with: the watcher's attestation key, never settlement's. */
export interface RetryDeps {
  sql: Sql;
  attestor: { keyId: string; key: KeyObject };
  /** Who asked, kept with the retry. */
  requestedBy: string;
}

export interface ChainRetryModule {
  /** The variable that names the chain's endpoint. */
  variable: keyof RetryRefundConfig;
  /**
   * Attests that a settlement intent's latest transaction failed on chain, as the chain's endpoint
   * shows it, and records the retry for the intent's next attempt (RetryRefusedError when the
   * chain does not prove it). Undefined when the configuration does not name the endpoint.
   */
  retrier(
    config: RetryRefundConfig,
    deps: RetryDeps,
  ): ((intentId: string, mode: Mode) => Promise<FailedIntentRetry>) | undefined;
}

/** `Config`: the chain's watcher configuration, as `watcherConfigSchema` parses it. */
export interface ChainDoctorModule<Config extends WatcherServiceConfig = WatcherServiceConfig> {
  /** The watcher's variables, checked under `watcher-<chain>` as every service's are. */
  watcherConfigSchema: z.ZodObject & z.ZodType<Config>;
  /** The chain preflight of the endpoint a configuration (the watcher's, settlement's) names, if any. */
  probe(config: Config | SettlementConfig): ChainProbe | undefined;
  /**
   * What the live service wallets hold on the chain (gas for fees, the vault's token accounts),
   * when settlement names its endpoint. Asked only once the chain preflight passed: balances mean
   * something only on the declared network.
   */
  wallets(book: ServiceAddressBook, settlement: SettlementConfig): Promise<Finding[]>;
  /** Checks of the watcher's own beyond its endpoint, as Solana's webhook provider. */
  watcherChecks?(config: Config): Promise<Finding[]>;
}
