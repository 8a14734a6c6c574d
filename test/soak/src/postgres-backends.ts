// PostgreSQL's backends by the service that opened them (`application_name`), with the memory
// each keeps for itself: PostgreSQL's PSS is one figure for all of them, and when it grows the
// question is whose. This is what found the prepared statements whose text followed the batch
// size (docs/operations.md, "One statement text per query").
import type { Sql } from "@gateway/db";
import { memoryOf } from "./process-memory.js";

export interface BackendGroup {
  connections: number;
  /** Their anonymous memory (`Pss_Anon`) together: what the backends allocated themselves, without
   * the shared buffers and the program's pages. */
  bytes: number;
}

/** Every backend but the one asking, grouped by `application_name` (by backend type when empty:
 * the checkpointer, the autovacuum launcher, …). `anonBytesOf` gives a backend's `Pss_Anon`: the
 * soak passes what it read of the whole cluster this sample, so each rollup is read once. */
export async function backendsByApplication(
  sql: Sql,
  anonBytesOf: (pid: number) => Promise<number> = async (pid) => (await memoryOf(pid)).anonBytes,
): Promise<Record<string, BackendGroup>> {
  const rows = await sql<{ pid: number; name: string }[]>`
    select pid, coalesce(nullif(application_name, ''), backend_type) as name
    from pg_stat_activity where pid <> pg_backend_pid()`;
  const groups: Record<string, BackendGroup> = {};
  for (const { pid, name } of rows) {
    const group = groups[name] ?? { connections: 0, bytes: 0 };
    group.connections += 1;
    group.bytes += await anonBytesOf(pid);
    groups[name] = group;
  }
  return groups;
}
