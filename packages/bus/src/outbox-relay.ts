import { onOutboxCommitted, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { JetStreamClient } from "@nats-io/jetstream";
import { type FollowedLog, type FollowedRow, followedLogs, relayBatch } from "./followed-logs.js";
import { publishWithId } from "./message-id.js";
import type { BusTopology } from "./topology.js";
import { wakeablePause } from "./wakeable-pause.js";

export interface OutboxRelayOptions {
  sql: Sql;
  js: JetStreamClient;
  log: Logger;
  /** Names the subject of each event the relay reads from `events`. */
  topology: BusTopology;
  batchSize?: number;
  /**
   * The poll that finds rows other processes committed (this process's own wake it at once), and
   * the retry pace while NATS is down.
   */
  pollMs?: number;
}

export interface OutboxRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Publishes everything committed now; resolves with how many rows were published. */
  drain(): Promise<number>;
}

/** The outbox's retention: a little longer than JetStream keeps messages (7 days). */
const OUTBOX_KEPT = "8 days";
/** The first read-again for rows waiting on an older transaction; doubled up to the poll, so it never spins. */
const UNSETTLED_RETRY_MS = 5;

/**
 * Follows `events` and `outbox` (followed-logs.ts). A cursor moves only after JetStream acknowledged
 * the rows below it, so a crash publishes them again into JetStream's duplicate window.
 */
class LogRelay implements OutboxRelay {
  readonly #sql: Sql;
  readonly #js: JetStreamClient;
  readonly #log: Logger;
  readonly #pollMs: number;
  readonly #batchSize: number;
  readonly #logs: FollowedLog[];
  readonly #idle = wakeablePause();
  #running = false;
  /** A wake-up during a drain: its rows may have committed after the drain's last read. */
  #woken = false;
  /** The last drain left committed rows behind an older running transaction. */
  #unsettled = false;
  /** Drains in a row that left rows waiting. */
  #unsettledReads = 0;
  #loop: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #failures = 0;
  #lastPrune = 0;

  constructor({ sql, js, log, topology, batchSize = 256, pollMs = 500 }: OutboxRelayOptions) {
    this.#sql = sql;
    this.#js = js;
    this.#log = log;
    this.#pollMs = pollMs;
    this.#batchSize = batchSize;
    this.#logs = followedLogs(topology);
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    // This process's commits of events or outbox rows wake it at once (packages/db,
    // outbox-commits.ts); other processes' rows are found by the poll.
    this.#unsubscribe = onOutboxCommitted(this.#sql, () => {
      this.#woken = true;
      this.#idle.wake();
    });
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#idle.wake();
    await this.#loop;
    this.#unsubscribe?.();
  }

  async drain(): Promise<number> {
    this.#unsettled = false;
    let total = 0;
    for (const followed of this.#logs) {
      for (;;) {
        const n = await this.#publishBatch(followed);
        total += n;
        if (n < this.#batchSize) break;
      }
    }
    return total;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      await this.#prune().catch((err) => this.#log.warn({ err }, "outbox pruning failed"));
      await this.#drainOnce();
      if (!this.#running) break;
      if (this.#woken && this.#failures === 0) {
        this.#woken = false;
        continue;
      }
      await this.#idle.pause(this.#nextDelay());
      this.#woken = false;
    }
  }

  #nextDelay(): number {
    const failures = this.#failures;
    if (failures > 0) return Math.min(this.#pollMs * 2 ** Math.min(failures, 4), 5_000);
    if (!this.#unsettled) {
      this.#unsettledReads = 0;
      return this.#pollMs;
    }
    this.#unsettledReads++;
    return Math.min(UNSETTLED_RETRY_MS * 2 ** Math.min(this.#unsettledReads - 1, 10), this.#pollMs);
  }

  async #drainOnce(): Promise<void> {
    try {
      await this.drain();
      if (this.#failures > 0) this.#log.info({ failures: this.#failures }, "outbox relay recovered");
      this.#failures = 0;
    } catch (err) {
      this.#failures++;
      if (this.#failures === 1 || this.#failures % 20 === 0)
        this.#log.warn({ err, failures: this.#failures }, "outbox publish failed; will retry");
    }
  }

  async #publishBatch(followed: FollowedLog): Promise<number> {
    const { passed, waiting } = await relayBatch(this.#sql, followed, this.#batchSize, (rows, epoch) =>
      this.#publish(rows, epoch),
    );
    if (waiting) this.#unsettled = true;
    return passed;
  }

  async #publish(rows: FollowedRow[], epoch: string): Promise<void> {
    const acks = await Promise.all(
      rows.map((row) => publishWithId(this.#js, row.subject!, row.payload, row.id, epoch)),
    );
    const duplicates = acks.filter((a) => a.duplicate).length;
    if (duplicates > 0) this.#log.info({ duplicates }, "relayed rows already in the stream");
  }

  /** The outbox keeps what it published as long as JetStream keeps messages; events stay. */
  async #prune(): Promise<void> {
    if (Date.now() - this.#lastPrune < 3_600_000) return;
    this.#lastPrune = Date.now();
    await this.#sql`delete from outbox o using relay_cursors c
      where c.relay = 'outbox' and (o.xid, o.seq) <= (c.xid, c.seq)
        and o.created_at < now() - ${OUTBOX_KEPT}::interval`;
  }
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  return new LogRelay(options);
}
