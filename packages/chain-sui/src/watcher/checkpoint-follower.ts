// Follows finalized checkpoints in order for this replica's partitions, as chain-solana's
// watcher/signature-tracker.ts follows signatures. A partition's cursor is the last checkpoint
// reported `seen`; reports and cursor commit in one outbox transaction, so none is skipped or repeated.
import { depositMessageId } from "@gateway/contracts";
import { enqueueOutbox, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { OpenAddresses, ReplicaMembership } from "@gateway/watcher-kit";
import type { CheckpointSource, WatchedCheckpoint } from "./checkpoint-source.js";
import type { DepositReporter, PartitionedReport } from "./deposit-reports.js";
import { PARTITIONS } from "./partitions.js";

export interface CheckpointFollowerOptions {
  sql: Sql;
  log: Logger;
  source: CheckpointSource;
  addresses: OpenAddresses;
  membership: ReplicaMembership;
  /** The partitions this replica owns now (partitions.ts, ownedBy). */
  owned: () => readonly number[];
  reports: DepositReporter;
  /** Where the deposit reports go, through the outbox. */
  subject: string;
  /** How far the chain's clock may run ahead of the database's when deciding the address set is fresh. */
  clockMarginMs: number;
  /** While false no checkpoint is handled, so no report goes out and no cursor moves. */
  crediting?: () => boolean;
}

/** A partition seen for the first time starts at the chain's current height. */
export async function seedPartitions(sql: Sql, height: bigint): Promise<void> {
  await sql`insert into sui_watcher_partitions (partition, checkpoint)
    select p, ${height} from generate_series(0, ${PARTITIONS - 1}) p
    on conflict (partition) do nothing`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class CheckpointFollower {
  readonly #o: CheckpointFollowerOptions;
  #running = true;
  #loop: Promise<void> | undefined;
  #cursors = new Map<number, bigint>();
  #cursorGeneration = -1;
  #previous: WatchedCheckpoint | undefined;
  #checkpointsProcessed = 0;
  #depositsPublished = 0;

  constructor(options: CheckpointFollowerOptions) {
    this.#o = options;
  }

  get checkpointsProcessed(): number {
    return this.#checkpointsProcessed;
  }

  get depositsPublished(): number {
    return this.#depositsPublished;
  }

  /** The lowest cursor among owned partitions. */
  lowestCursor(): bigint | null {
    let low: bigint | null = null;
    for (const c of this.#cursors.values()) if (low === null || c < low) low = c;
    return low;
  }

  start(): void {
    this.#loop = this.#run();
  }

  /** Stops the loop and the source it waits on; resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#o.source.stop();
    await this.#loop;
  }

  async #run() {
    let failures = 0;
    while (this.#running) {
      try {
        if (await this.#step()) failures = 0;
      } catch (err) {
        if (!this.#running) break;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          this.#o.log.warn({ err, failures }, "sui watcher step failed");
        // Cursors may be stale after a failed transaction; read them again.
        this.#cursorGeneration = -1;
        await sleep(Math.min(100 * 2 ** failures, 5_000));
      }
    }
  }

  /** True when a checkpoint was handled; false when there was nothing to do yet. */
  async #step(): Promise<boolean> {
    const { membership, source, crediting } = this.#o;
    if (this.#cursorGeneration !== membership.generation()) await this.#loadCursors();
    if (this.#cursors.size === 0 || crediting?.() === false) {
      await sleep(200);
      return false;
    }
    let next = -1n;
    for (const cursor of this.#cursors.values()) if (next < 0n || cursor < next) next = cursor;
    const checkpoint = await source.get(next + 1n);
    if (!this.#running || this.#cursorGeneration !== membership.generation()) return false;
    await this.#handle(checkpoint);
    return true;
  }

  async #loadCursors() {
    const generation = this.#o.membership.generation();
    const mine = [...this.#o.owned()];
    const rows = await this.#o.sql<{ partition: number; checkpoint: bigint }[]>`
      select partition, checkpoint from sui_watcher_partitions where partition = any(${mine}::int[])`;
    this.#cursors = new Map(rows.map((r) => [r.partition, BigInt(r.checkpoint)]));
    this.#cursorGeneration = generation;
  }

  async #handle(checkpoint: WatchedCheckpoint) {
    const { addresses, clockMarginMs, log } = this.#o;
    // Every wallet created before the checkpoint must be known before it is matched.
    if (addresses.asOf() < checkpoint.timestampMs + clockMarginMs) await addresses.refresh();
    // Partitions behind are exactly those at the previous checkpoint (the loop takes min + 1).
    const behind = new Set<number>();
    for (const [partition, cursor] of this.#cursors) if (cursor < checkpoint.sequence) behind.add(partition);
    const reports = await this.#reportsAt(checkpoint, behind);
    const published = await this.#advance(checkpoint.sequence, behind, reports);
    for (const partition of behind) this.#cursors.set(partition, checkpoint.sequence);
    this.#previous = checkpoint;
    this.#checkpointsProcessed++;
    this.#depositsPublished += published;
    if (published > 0) {
      log.info({ checkpoint: checkpoint.sequence, deposits: published }, "sui deposits observed");
    }
  }

  /**
   * A checkpoint is final when sealed; still, its transfers are reported `seen` with it and
   * `final` with the next one, so the payment always hears them in that order (a customer's
   * first transfer reads as confirming, as on Solana) and the final costs one interval.
   */
  async #reportsAt(checkpoint: WatchedCheckpoint, behind: Set<number>): Promise<PartitionedReport[]> {
    const { reports, source } = this.#o;
    const previous = this.#previous;
    const before =
      checkpoint.sequence === 0n
        ? undefined
        : previous?.sequence === checkpoint.sequence - 1n
          ? previous
          : await source.get(checkpoint.sequence - 1n);
    const finals = before ? reports(before, behind, "final") : [];
    // A final may be handled before its seen (settlement runs deposits concurrently); the
    // payment actor still passes through confirming, so nothing waits for the other here.
    return [...finals, ...reports(checkpoint, behind, "seen")];
  }

  /** Moves the cursors of `behind` to `sequence` with the reports of the partitions moved; final ones counted. */
  async #advance(sequence: bigint, behind: Set<number>, reports: PartitionedReport[]): Promise<number> {
    const { sql, subject } = this.#o;
    return sql.begin(async (tx) => {
      // Conditional on the stored cursor: a replica that briefly shares a partition with another
      // after a membership change advances it at most once per checkpoint.
      const rows = await tx<{ partition: number }[]>`
        update sui_watcher_partitions set checkpoint = ${sequence}, updated_at = now()
        where partition = any(${[...behind]}::int[]) and checkpoint < ${sequence}
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
      return publish.filter((r) => r.stage === "final").length;
    });
  }
}
