// The two logs a relay follows, each read past its cursor in (xid, seq) order (docs/write-path.md,
// "The gap-safe cursor"): `events`, whose rows are the merchant-visible events themselves, and
// `outbox`, the commands and work items appended beside a change.
import type { EventMessage } from "@gateway/contracts";
import type { TransactionSql } from "@gateway/db";
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

export function followedLogs(topology: BusTopology): FollowedLog[] {
  return [
    {
      name: "events",
      async read(tx, limit) {
        const rows = await tx<EventRow[]>`
          select e.xid::text, e.seq::text, e.id, e.merchant_id, e.mode, e.type, e.data, e.created_at,
            e.xid < pg_snapshot_xmin(pg_current_snapshot()) as settled
          from events e join relay_cursors c on c.relay = 'events'
          where (e.xid, e.seq) > (c.xid, c.seq)
          order by e.xid, e.seq limit ${limit}`;
        return rows.map((row) => ({ ...row, ...eventMessage(topology, row) }));
      },
    },
    {
      name: "outbox",
      async read(tx, limit) {
        return tx<FollowedRow[]>`
          select o.xid::text, o.seq::text, o.id, o.subject, o.payload,
            o.xid < pg_snapshot_xmin(pg_current_snapshot()) as settled
          from outbox o join relay_cursors c on c.relay = 'outbox'
          where (o.xid, o.seq) > (c.xid, c.seq)
          order by o.xid, o.seq limit ${limit}`;
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
