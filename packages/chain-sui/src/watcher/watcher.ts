import { randomUUID } from "node:crypto";
import { type Bus, createOutboxRelay, type OutboxRelay } from "@gateway/bus";
import { type DepositReport, depositMessageId } from "@gateway/contracts";
import { enqueueOutbox } from "@gateway/db";
import type { Coin } from "@gateway/domain";
import { signAttestation } from "@gateway/signer-client";
import {
  createOpenAddresses,
  createReplicaMembership,
  type OpenAddresses,
  ownedPartitions,
  type ReplicaMembership,
  type WatcherBasics,
} from "@gateway/watcher-kit";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeStructTag } from "@mysten/sui/utils";
import {
  type CheckpointSource,
  createCheckpointSource,
  type WatchedCheckpoint,
} from "./checkpoint-source.js";
import { depositsOf, normalizeCoinTypes } from "./match.js";
import { PARTITIONS, partitionOfAddress } from "./partitions.js";

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

/**
 * Follows finalized Sui checkpoints in order and turns transfers to open deposit addresses into
 * deposit reports. Each partition of the address space keeps its cursor in PostgreSQL: the last
 * checkpoint whose transfers are reported `seen` (those of the one before it are `final`). The
 * reports and the cursor advance commit in one outbox transaction, so a crash at any point
 * neither skips nor repeats one.
 */
export async function startSuiWatcher(options: SuiWatcherOptions): Promise<SuiWatcher> {
  const { sql, bus, client, log } = options;
  const replicaId = options.replicaId ?? `sui-${randomUUID()}`;
  const coinTypes = normalizeCoinTypes(options.coinTypes);
  const clockMarginMs = options.clockMarginMs ?? 2_000;
  const subject = bus.topology.subjects.deposit("sui");

  const source: CheckpointSource = createCheckpointSource({ client, log });
  const addresses: OpenAddresses = createOpenAddresses({
    sql,
    chain: "sui",
    lateWindowMs: options.lateGraceMs ?? 24 * 3600_000,
    fullReloadMs: options.fullReloadMs ?? 60_000,
  });
  const membership: ReplicaMembership = createReplicaMembership({
    sql,
    log,
    chain: "sui",
    replicaId,
    heartbeatMs: options.heartbeatMs ?? 2_000,
    ttlMs: options.replicaTtlMs ?? 10_000,
  });
  /** The partition of an open address, or undefined when it is not open. */
  const partitionOfOpen = (address: string) =>
    addresses.get(address) === undefined ? undefined : partitionOfAddress(address);
  /** The partitions this replica owns, recomputed when the live replicas change. */
  let owned: { generation: number; partitions: readonly number[] } = { generation: -1, partitions: [] };
  function ownedNow(): readonly number[] {
    if (owned.generation !== membership.generation()) {
      owned = {
        generation: membership.generation(),
        partitions: ownedPartitions(replicaId, membership.live(), PARTITIONS),
      };
    }
    return owned.partitions;
  }
  const relay: OutboxRelay | undefined =
    options.relay === false
      ? undefined
      : createOutboxRelay({ sql, js: bus.js, log, pollMs: options.outboxPollMs ?? 500 });

  let running = true;
  let checkpointsProcessed = 0;
  let depositsPublished = 0;
  let cursors = new Map<number, bigint>();
  let cursorGeneration = -1;

  await source.start();
  // A partition seen for the first time starts at the chain's current height.
  await sql`insert into sui_watcher_partitions (partition, checkpoint)
    select p, ${source.height} from generate_series(0, ${PARTITIONS - 1}) p
    on conflict (partition) do nothing`;
  await membership.start();
  await addresses.refresh();
  await relay?.start();

  async function loadCursors() {
    const generation = membership.generation();
    const mine = [...ownedNow()];
    const rows = await sql<{ partition: number; checkpoint: bigint }[]>`
      select partition, checkpoint from sui_watcher_partitions where partition = any(${mine}::int[])`;
    cursors = new Map(rows.map((r) => [r.partition, BigInt(r.checkpoint)]));
    cursorGeneration = generation;
  }

  let previous: WatchedCheckpoint | undefined;

  /** Final reports carry the watcher's signature over the transfer; the signer refunds only those. */
  function attested(report: DepositReport, stage: "seen" | "final"): DepositReport {
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

  function reportsOf(
    checkpoint: WatchedCheckpoint,
    behind: Set<number>,
    stage: "seen" | "final",
  ): (DepositReport & { partition: number })[] {
    const reports: (DepositReport & { partition: number })[] = [];
    for (const tx of checkpoint.transactions) {
      for (const report of depositsOf(tx, coinTypes, (a) => {
        const p = partitionOfOpen(a);
        return p !== undefined && behind.has(p);
      })) {
        reports.push({ ...attested(report, stage), stage, partition: partitionOfAddress(report.address) });
      }
    }
    return reports;
  }

  async function handle(checkpoint: WatchedCheckpoint) {
    // Every wallet created before the checkpoint must be known before it is matched.
    if (addresses.asOf() < checkpoint.timestampMs + clockMarginMs) await addresses.refresh();
    // Partitions behind are exactly those at the previous checkpoint (the loop takes min + 1).
    const behind = new Set<number>();
    for (const [partition, cursor] of cursors) if (cursor < checkpoint.sequence) behind.add(partition);
    // A checkpoint is final when sealed; still, its transfers are reported `seen` with it and
    // `final` with the next one, so the payment always hears them in that order (a customer's
    // first transfer reads as confirming, as on Solana) and the final costs one interval.
    const before =
      checkpoint.sequence === 0n
        ? undefined
        : previous?.sequence === checkpoint.sequence - 1n
          ? previous
          : await source.get(checkpoint.sequence - 1n);
    const finals = before ? reportsOf(before, behind, "final") : [];
    // A final may be handled before its seen (settlement runs deposits concurrently); the
    // payment actor still passes through confirming, so nothing waits for the other here.
    const reports = [...finals, ...reportsOf(checkpoint, behind, "seen")];
    const advanced = await sql.begin(async (tx) => {
      // Conditional on the stored cursor: a replica that briefly shares a partition with another
      // after a membership change advances it at most once per checkpoint.
      const rows = await tx<{ partition: number }[]>`
        update sui_watcher_partitions set checkpoint = ${checkpoint.sequence}, updated_at = now()
        where partition = any(${[...behind]}::int[]) and checkpoint < ${checkpoint.sequence}
        returning partition`;
      const mine = new Set(rows.map((r) => r.partition));
      const publish = reports.filter((r) => mine.has(r.partition));
      await enqueueOutbox(
        tx,
        publish.map(({ partition: _, ...report }) => ({
          id: depositMessageId(report),
          subject,
          payload: report,
        })),
      );
      return { mine, published: publish.filter((r) => r.stage === "final").length };
    });
    for (const partition of behind) cursors.set(partition, checkpoint.sequence);
    previous = checkpoint;
    checkpointsProcessed++;
    depositsPublished += advanced.published;
    if (advanced.published > 0) {
      log.info({ checkpoint: checkpoint.sequence, deposits: advanced.published }, "sui deposits observed");
    }
  }

  async function run() {
    let failures = 0;
    while (running) {
      try {
        if (cursorGeneration !== membership.generation()) await loadCursors();
        if (cursors.size === 0 || options.crediting?.() === false) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        let next = -1n;
        for (const cursor of cursors.values()) if (next < 0n || cursor < next) next = cursor;
        const checkpoint = await source.get(next + 1n);
        if (!running) break;
        if (cursorGeneration !== membership.generation()) continue;
        await handle(checkpoint);
        failures = 0;
      } catch (err) {
        if (!running) break;
        failures++;
        if (failures === 1 || failures % 20 === 0) log.warn({ err, failures }, "sui watcher step failed");
        // Cursors may be stale after a failed transaction; read them again.
        cursorGeneration = -1;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** failures, 5_000)));
      }
    }
  }

  const loop = run();
  log.info({ replicaId, partitions: ownedNow().length }, "sui watcher started");

  return {
    status() {
      let low: bigint | null = null;
      for (const c of cursors.values()) if (low === null || c < low) low = c;
      return {
        replicaId,
        partitions: ownedNow().length,
        openAddresses: addresses.size(),
        checkpoint: low,
        checkpointsProcessed,
        depositsPublished,
      };
    },
    async stop() {
      running = false;
      source.stop();
      await loop;
      await membership.stop();
      await relay?.stop();
    },
  };
}
