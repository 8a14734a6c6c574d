import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { JetStreamClient } from "@nats-io/jetstream";
import { publishWithId } from "./message-id.js";
import { wakeablePause } from "./wakeable-pause.js";

export interface OutboxRelayOptions {
  sql: Sql;
  js: JetStreamClient;
  log: Logger;
  batchSize?: number;
  /** Fallback poll when no NOTIFY arrives (and the retry pace while NATS is down). */
  pollMs?: number;
  /**
   * Whose commits wake this relay at once: the application_name of the writers' connections,
   * whose commits notify a channel of their own (migration 1400). Default: the relay's own pool's
   * name, so a service's relay wakes for the rows its own process commits; other services' rows
   * reach it only by the poll, which matters only when their own relays are gone.
   */
  wakeFor?: string;
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
  wakeFor = applicationNameOf(sql) ?? "",
}: OutboxRelayOptions): OutboxRelay {
  let running = false;
  const idle = wakeablePause();
  // A NOTIFY that arrives while a drain runs must not be lost: its rows may have committed after
  // the drain's last read, and the next pass would otherwise wait a whole poll.
  let woken = false;
  let loop: Promise<void> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let failures = 0;

  async function publishBatch(): Promise<number> {
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

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await publishBatch();
      total += n;
      if (n < batchSize) return total;
    }
  }

  // Published outbox rows and processed-message records are kept a little longer than JetStream
  // keeps messages (7 days), so a redelivery always finds its record; then they go.
  let lastPrune = 0;
  async function prune() {
    if (Date.now() - lastPrune < 3_600_000) return;
    lastPrune = Date.now();
    await sql`delete from outbox where published_at < now() - interval '8 days'`;
    await sql`delete from processed_messages where processed_at < now() - interval '8 days'`;
  }

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
      const listener = await sql.listen(outboxChannel(wakeFor), () => {
        woken = true;
        idle.wake();
      });
      unlisten = listener.unlisten;
      loop = run();
    },
    async stop() {
      running = false;
      idle.wake();
      await loop;
      await unlisten?.();
    },
    drain,
  };
}

/**
 * The channel a writer's outbox commits notify (migration 1400): `outbox:` and its connection's
 * application_name, cut to the 63 bytes PostgreSQL allows a channel's name (an application_name
 * is printable ASCII: PostgreSQL replaces anything else with `?`, so characters are bytes).
 */
export function outboxChannel(applicationName: string): string {
  return `outbox:${applicationName}`.slice(0, 63);
}

/** The application_name the pool's connections carry (packages/db createSql), if any. */
function applicationNameOf(sql: Sql): string | undefined {
  const connection = (sql.options as { connection?: Record<string, unknown> }).connection;
  const name = connection?.application_name;
  return typeof name === "string" ? name : undefined;
}
