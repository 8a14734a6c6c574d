// Reads of the `events` table for the events API: a merchant's events of one mode, as the bodies
// its webhook endpoints receive.
import type { EventType, GatewayEvent } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";

/** How long the events API serves an event; the rows stay, as the payment timeline reads them. */
export const EVENT_API_RETENTION_DAYS = 30;

interface EventRow {
  id: string;
  type: EventType;
  mode: Mode;
  data: unknown;
  created_at: Date;
  seq: bigint;
}

export interface EventOwner {
  merchantId: string;
  mode: Mode;
}

/** The body a webhook carries (docs/webhooks.md): id, type, created_at, is_test, data. */
export function toEventBody(
  row: Pick<EventRow, "id" | "type" | "mode" | "data" | "created_at">,
): GatewayEvent {
  return {
    id: row.id,
    type: row.type,
    created_at: row.created_at.toISOString(),
    is_test: row.mode === "test",
    data: row.data,
  } as GatewayEvent;
}

const COLUMNS = "id, type, mode, data, created_at, seq";

export async function findEvent(sql: Sql, owner: EventOwner, id: string): Promise<GatewayEvent | undefined> {
  const [row] = await sql<EventRow[]>`
    select ${sql.unsafe(COLUMNS)} from events
    where id = ${id} and merchant_id = ${owner.merchantId} and mode = ${owner.mode}
      and created_at > now() - make_interval(days => ${EVENT_API_RETENTION_DAYS})`;
  return row && toEventBody(row);
}

/**
 * Newest first, in insertion order (`seq`: several events of one transaction share a
 * millisecond). Undefined when the cursor is not an event of this owner within the retention.
 */
export async function listEvents(
  sql: Sql,
  owner: EventOwner,
  q: { limit: number; type?: EventType | undefined; startingAfter?: string | undefined },
): Promise<{ events: GatewayEvent[]; hasMore: boolean } | undefined> {
  let before: bigint | undefined;
  if (q.startingAfter !== undefined) {
    const [cursor] = await sql<{ seq: bigint }[]>`
      select seq from events
      where id = ${q.startingAfter} and merchant_id = ${owner.merchantId} and mode = ${owner.mode}`;
    if (!cursor) return undefined;
    before = cursor.seq;
  }
  const rows = await sql<EventRow[]>`
    select ${sql.unsafe(COLUMNS)} from events
    where merchant_id = ${owner.merchantId} and mode = ${owner.mode}
      ${q.type === undefined ? sql`` : sql`and type = ${q.type}`}
      ${before === undefined ? sql`` : sql`and seq < ${before}`}
      and created_at > now() - make_interval(days => ${EVENT_API_RETENTION_DAYS})
    order by seq desc
    limit ${q.limit + 1}`;
  return { events: rows.slice(0, q.limit).map(toEventBody), hasMore: rows.length > q.limit };
}
