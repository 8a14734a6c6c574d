// The highest signer audit head a caller saw, kept in PostgreSQL (off the signer's host). Only
// ever moves forward; see withAuditHeadCheck in @gateway/signer-client.
import type { Sql } from "./client.js";

export interface StoredAuditHead {
  seq: bigint;
  hash: string;
}

export function createAuditHeadStore(sql: Sql, caller: string) {
  return {
    async record(head: StoredAuditHead): Promise<void> {
      await sql`
        insert into signer_audit_heads (caller, seq, hash) values (${caller}, ${head.seq.toString()}, ${head.hash})
        on conflict (caller) do update set seq = excluded.seq, hash = excluded.hash, seen_at = now()
        where signer_audit_heads.seq < excluded.seq`;
    },
    async highest(): Promise<StoredAuditHead | undefined> {
      const [row] = await sql<{ seq: string; hash: string }[]>`
        select seq::text, hash from signer_audit_heads order by seq desc limit 1`;
      return row ? { seq: BigInt(row.seq), hash: row.hash } : undefined;
    },
  };
}
