// The two logs a relay follows, each read past its cursor in (xid, seq) order (docs/write-path.md,
// "The gap-safe cursor"): `events`, whose rows are the merchant-visible events themselves, and
// `outbox`, the commands and work items appended beside a change.
import type { EventMessage } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";
import type { BusTopology } from "./topology.js";

export interface FollowedRow {
  xid: string;
  seq: string;
  id: string;
  /** Undefined for a row the cursor passes without publishing it. */
  subject: string | undefined;
  payload: unknown;
  /**
   * The row's transaction id is below every running one, so no row can still commit below it.
   * A committed row past an unsettled one waits for the next read.
   */
  settled: boolean;
}

export interface FollowedLog {
  name: "events" | "outbox";
  /** The rows past the cursor, settled or not, in cursor order. */
  read(tx: TransactionSql, limit: number): Promise<FollowedRow[]>;
}

interface EventRow {
  xid: string;
  seq: string;
  id: string;
  merchant_id: string;
  mode: "test" | "live";
  type: string;
  data: unknown;
  created_at: Date;
  settled: boolean;
}

// Each read reaches its log's (xid, seq) index through a lateral join on the cursor: joined
// plainly, the row comparison was a join filter, and every read went through the whole log behind
// the cursor (25 ms at 50,000 events, against 0.1 ms).
export function followedLogs(topology: BusTopology): FollowedLog[] {
  return [
    {
      name: "events",
      async read(tx, limit) {
        const rows = await tx<EventRow[]>`
          select e.xid::text, e.seq::text, e.id, e.merchant_id, e.mode, e.type, e.data, e.created_at,
            e.xid < pg_snapshot_xmin(pg_current_snapshot()) as settled
          from relay_cursors c cross join lateral (
            select * from events e where (e.xid, e.seq) > (c.xid, c.seq) order by e.xid, e.seq limit ${limit}) e
          where c.relay = 'events'
          order by e.xid, e.seq`;
        return rows.map((row) => ({ ...row, ...eventMessage(topology, row) }));
      },
    },
    {
      name: "outbox",
      async read(tx, limit) {
        return tx<FollowedRow[]>`
          select o.xid::text, o.seq::text, o.id, o.subject, o.payload,
            o.xid < pg_snapshot_xmin(pg_current_snapshot()) as settled
          from relay_cursors c cross join lateral (
            select * from outbox o where (o.xid, o.seq) > (c.xid, c.seq) order by o.xid, o.seq limit ${limit}) o
          where c.relay = 'outbox'
          order by o.xid, o.seq`;
      },
    },
  ];
}

/**
 * The notifier's message, built from the row as its writer built it. A `webhook.test` event is
 * for one endpoint, whose delivery was written with it, so it is passed without a message.
 */
function eventMessage(topology: BusTopology, row: EventRow): Pick<FollowedRow, "subject" | "payload"> {
  if (row.type === "webhook.test") return { subject: undefined, payload: undefined };
  const event = {
    id: row.id,
    type: row.type,
    created_at: row.created_at.toISOString(),
    is_test: row.mode === "test",
    data: row.data,
  };
  return {
    subject: topology.subjects.event(row.type),
    payload: { merchant_id: row.merchant_id, mode: row.mode, event } as EventMessage,
  };
}

/** What the relay hands a batch's rows to, with the database's bus epoch (message-id.ts). */
export type PublishRows = (rows: FollowedRow[], epoch: string) => Promise<void>;

/**
 * One batch of one log under the log's advisory lock (it takes no transaction id, so it delays no
 * reader): the settled rows past the cursor are published, then the cursor moves past them.
 */
export async function relayBatch(
  sql: Sql,
  followed: FollowedLog,
  batchSize: number,
  publish: PublishRows,
): Promise<{ passed: number; waiting: boolean }> {
  return (await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`relay:${followed.name}`}, 0))`;
    const read = await followed.read(tx, batchSize);
    // Settled rows come first in cursor order: every settled xid is below every unsettled one.
    const rows = read.filter((r) => r.settled);
    const waiting = rows.length < read.length;
    if (rows.length === 0) return { passed: 0, waiting };
    const sent = rows.filter((r) => r.subject !== undefined);
    if (sent.length > 0) {
      const [bus] = await tx<{ epoch: string }[]>`select epoch from bus_epoch`;
      await publish(sent, bus?.epoch ?? "");
    }
    const last = rows[rows.length - 1]!;
    await tx`update relay_cursors set xid = ${last.xid}::xid8, seq = ${last.seq} where relay = ${followed.name}`;
    return { passed: rows.length, waiting };
  })) as { passed: number; waiting: boolean };
}
