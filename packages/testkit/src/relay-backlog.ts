import type { Sql } from "@gateway/db";

/**
 * Moves both relay cursors past every row written so far, as if a relay had published them: for
 * a test whose earlier rows were for streams that are gone, so the next test's relay skips them.
 */
export async function skipRelayBacklog(sql: Sql): Promise<void> {
  await sql`update relay_cursors c set (xid, seq) = (
      select greatest(max(l.xid), c.xid), greatest(max(l.seq), c.seq) from (
        select xid, seq from outbox where c.relay = 'outbox'
        union all select xid, seq from events where c.relay = 'events') l)`;
}
