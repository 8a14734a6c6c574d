// The highest signer audit head a caller saw, kept in PostgreSQL (off the signer's host). Only
// ever moves forward; see withAuditHeadCheck in @gateway/signer-client.
import type { Sql } from "./client.js";

export interface StoredAuditHead {
  seq: bigint;
  hash: string;
}

/**
 * `record` resolves once a head at least as high as the one given is committed, as a signature's
 * caller needs before it uses the signature. Heads that arrive while a write is in flight wait
 * for it and go together in the next one, the highest only: every signature of a caller used to
 * update the caller's one row in a commit of its own, one after another on that row's lock, which
 * caps a settlement replica's signatures at the commits one row can take.
 */
export function createAuditHeadStore(sql: Sql, caller: string) {
  /** The highest head this store has committed. */
  let committed = -1n;
  /** The write in flight, and the head it writes. */
  let flying: { seq: bigint; done: Promise<void> } | undefined;
  /** The highest head that waits for the write in flight to end. */
  let waiting: StoredAuditHead | undefined;

  const write = async (head: StoredAuditHead) => {
    await sql`
      insert into signer_audit_heads (caller, seq, hash) values (${caller}, ${head.seq.toString()}, ${head.hash})
      on conflict (caller) do update set seq = excluded.seq, hash = excluded.hash, seen_at = now()
      where signer_audit_heads.seq < excluded.seq`;
    if (head.seq > committed) committed = head.seq;
  };

  return {
    async record(head: StoredAuditHead): Promise<void> {
      while (head.seq > committed) {
        if (flying && head.seq <= flying.seq) {
          // Its failure is this head's failure too: it is not known to be stored.
          await flying.done;
          continue;
        }
        if (!waiting || head.seq > waiting.seq) waiting = head;
        if (flying) {
          // The next write, made by whichever waiter wakes first, takes the highest waiting head.
          await flying.done.catch(() => {});
          continue;
        }
        const next = waiting;
        waiting = undefined;
        const done = write(next);
        const flight = { seq: next.seq, done };
        flying = flight;
        try {
          await done;
        } finally {
          if (flying === flight) flying = undefined;
        }
      }
    },
    async highest(): Promise<StoredAuditHead | undefined> {
      const [row] = await sql<{ seq: string; hash: string }[]>`
        select seq::text, hash from signer_audit_heads order by seq desc limit 1`;
      return row ? { seq: BigInt(row.seq), hash: row.hash } : undefined;
    },
  };
}
