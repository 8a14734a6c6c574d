import { onOutboxCommitted, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { JetStreamClient } from "@nats-io/jetstream";
import { publishWithId } from "./message-id.js";
import { wakeablePause } from "./wakeable-pause.js";

export interface OutboxRelayOptions {
  sql: Sql;
  js: JetStreamClient;
  log: Logger;
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
  /** Publishes everything pending now; resolves with how many rows were published. */
  drain(): Promise<number>;
}

/**
 * Moves committed outbox rows to JetStream. Each row is published with its id (message-id.ts: the
 * database's bus epoch in Nats-Msg-Id) and marked sent only after JetStream acknowledged it; a
 * crash between the two publishes it again, and JetStream's duplicate window drops the copy.
 * Replicas lock disjoint rows (SKIP LOCKED).
 */
export function createOutboxRelay({
  sql,
  js,
  log,
  batchSize = 256,
  pollMs = 500,
}: OutboxRelayOptions): OutboxRelay {
  let running = false;
  const idle = wakeablePause();
  // A wake-up that arrives while a drain runs must not be lost: its rows may have committed after
  // the drain's last read, and the next pass would otherwise wait a whole poll.
  let woken = false;
  let loop: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  let failures = 0;

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await publishBatch({ sql, js, log, batchSize });
      total += n;
      if (n < batchSize) return total;
    }
  }

  const prune = pruner(sql);

  async function run() {
    while (running) {
      await prune().catch((err) => log.warn({ err }, "outbox pruning failed"));
      try {
        await drain();
        if (failures > 0) log.info({ failures }, "outbox relay recovered");
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 20 === 0)
          log.warn({ err, failures }, "outbox publish failed; will retry");
      }
      if (!running) break;
      if (woken && failures === 0) {
        woken = false;
        continue;
      }
      const delay = failures > 0 ? Math.min(pollMs * 2 ** Math.min(failures, 4), 5_000) : pollMs;
      await idle.pause(delay);
      woken = false;
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      // This process's commits of outbox rows wake it at once (packages/db, outbox-commits.ts);
      // other processes' rows are found by the poll.
      unsubscribe = onOutboxCommitted(sql, () => {
        woken = true;
        idle.wake();
      });
      loop = run();
    },
    async stop() {
      running = false;
      idle.wake();
      await loop;
      unsubscribe?.();
    },
    drain,
  };
}

async function publishBatch({ sql, js, log, batchSize }: Required<Omit<OutboxRelayOptions, "pollMs">>) {
  return sql.begin(async (tx) => {
    const rows = await tx<{ seq: bigint; id: string; subject: string; payload: unknown; epoch: string }[]>`
        select seq, id, subject, payload, (select epoch from bus_epoch) as epoch from outbox
        where published_at is null order by seq limit ${batchSize} for update skip locked`;
    if (rows.length === 0) return 0;
    const acks = await Promise.all(
      rows.map((row) => publishWithId(js, row.subject, row.payload, row.id, row.epoch ?? "")),
    );
    const duplicates = acks.filter((a) => a.duplicate).length;
    if (duplicates > 0) log.info({ duplicates }, "outbox rows already in the stream");
    // An array, not `in (…)`: one statement text for any batch size (docs/operations.md, "One statement text per query").
    await tx`update outbox set published_at = now()
        where seq = any(${rows.map((r) => r.seq.toString())}::bigint[])`;
    return rows.length;
  });
}

/**
 * Published outbox rows and processed-message records are kept a little longer than JetStream
 * keeps messages (7 days), so a redelivery always finds its record; then they go.
 */
function pruner(sql: Sql) {
  let lastPrune = 0;
  return async () => {
    if (Date.now() - lastPrune < 3_600_000) return;
    lastPrune = Date.now();
    await sql`delete from outbox where published_at < now() - interval '8 days'`;
    await sql`delete from processed_messages where processed_at < now() - interval '8 days'`;
  };
}
