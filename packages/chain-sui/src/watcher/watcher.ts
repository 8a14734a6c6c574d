// The Sui watcher: a checkpoint source feeds one checkpoint follower per replica, which reports
// the deposits to open addresses of its partitions to `<p>.cmd.deposit.sui` through the outbox.
// No webhook ingress, provider registration or reconciler as on Solana: every finalized
// checkpoint is read whole, so there is no hint to miss.
import { randomUUID } from "node:crypto";
import { type Bus, createOutboxRelay } from "@gateway/bus";
import type { Coin } from "@gateway/domain";
import { createOpenAddresses, createReplicaMembership, type WatcherBasics } from "@gateway/watcher-kit";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { CheckpointFollower, seedPartitions } from "./checkpoint-follower.js";
import { createCheckpointSource } from "./checkpoint-source.js";
import { depositReporter } from "./deposit-reports.js";
import { normalizeCoinTypes } from "./deposits-in-transaction.js";
import { ownedBy, partitionOfAddress } from "./partitions.js";

/**
 * While `crediting` is false no checkpoint is handled, so no report goes out and no cursor moves;
 * the watcher resumes where it stopped.
 */
export interface SuiWatcherOptions extends WatcherBasics {
  bus: Bus;
  client: SuiGrpcClient;
  /** Coin types per coin; transfers of other types are ignored. */
  coinTypes: Partial<Record<Coin, string>>;
  replicaId?: string;
  /** A replica without a heartbeat for this long loses its partitions. */
  replicaTtlMs?: number;
  lateGraceMs?: number;
  fullReloadMs?: number;
  /** Run an outbox relay here (default true); the deposits then reach JetStream without settlement. */
  relay?: boolean;
  outboxPollMs?: number;
  /** How far the chain's clock may run ahead of the database's when deciding the address set is fresh. */
  clockMarginMs?: number;
}

export interface SuiWatcherStatus {
  replicaId: string;
  partitions: number;
  openAddresses: number;
  /** The lowest cursor among owned partitions. */
  checkpoint: bigint | null;
  checkpointsProcessed: number;
  depositsPublished: number;
}

export interface SuiWatcher {
  status(): SuiWatcherStatus;
  stop(): Promise<void>;
}

/** Follows finalized Sui checkpoints in order and turns transfers to open deposit addresses into deposit reports. */
export async function startSuiWatcher(options: SuiWatcherOptions): Promise<SuiWatcher> {
  const { sql, bus, client, log } = options;
  const replicaId = options.replicaId ?? `sui-${randomUUID()}`;
  const source = createCheckpointSource({ client, log });
  const addresses = createOpenAddresses({
    sql,
    chain: "sui",
    lateWindowMs: options.lateGraceMs ?? 24 * 3600_000,
    fullReloadMs: options.fullReloadMs ?? 60_000,
  });
  const membership = createReplicaMembership({
    sql,
    log,
    chain: "sui",
    replicaId,
    heartbeatMs: options.heartbeatMs ?? 2_000,
    ttlMs: options.replicaTtlMs ?? 10_000,
  });
  const owned = ownedBy(replicaId, membership);
  const relay =
    options.relay === false
      ? undefined
      : createOutboxRelay({
          sql,
          js: bus.js,
          topology: bus.topology,
          log,
          pollMs: options.outboxPollMs ?? 500,
        });
  const reports = depositReporter({
    coinTypes: options.coinTypes,
    matching: normalizeCoinTypes(options.coinTypes),
    ...(options.attestor ? { attestor: options.attestor } : {}),
    partitionOfOpen: (address) =>
      addresses.get(address) === undefined ? undefined : partitionOfAddress(address),
  });

  await source.start();
  await seedPartitions(sql, source.height);
  await membership.start();
  await addresses.refresh();
  await relay?.start();
  const follower = new CheckpointFollower({
    sql,
    log,
    source,
    addresses,
    membership,
    owned,
    reports,
    subject: bus.topology.subjects.deposit("sui"),
    clockMarginMs: options.clockMarginMs ?? 2_000,
    ...(options.crediting ? { crediting: options.crediting } : {}),
  });
  follower.start();
  log.info({ replicaId, partitions: owned().length }, "sui watcher started");

  return {
    status: () => ({
      replicaId,
      partitions: owned().length,
      openAddresses: addresses.size(),
      checkpoint: follower.lowestCursor(),
      checkpointsProcessed: follower.checkpointsProcessed,
      depositsPublished: follower.depositsPublished,
    }),
    async stop() {
      await follower.stop();
      await membership.stop();
      await relay?.stop();
    },
  };
}
