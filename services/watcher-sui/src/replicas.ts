import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { ownedPartitions } from "./partitions.js";

export interface Membership {
  /** Partitions this replica owns now. */
  readonly owned: readonly number[];
  /** Bumped every time `owned` changes. */
  readonly generation: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Replicas register in PostgreSQL and heartbeat; the live ones (a heartbeat younger than the
 * ttl) split the partitions by rendezvous hashing. A replica that dies stops heartbeating and
 * its partitions move to the others within one ttl, resuming from their own cursors.
 */
export function createMembership(options: {
  sql: Sql;
  log: Logger;
  replicaId: string;
  heartbeatMs: number;
  ttlMs: number;
}): Membership {
  const { sql, log, replicaId, heartbeatMs, ttlMs } = options;
  let owned: number[] = [];
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;

  async function beat() {
    const rows = await sql.begin(async (tx) => {
      await tx`insert into sui_watcher_replicas (id) values (${replicaId})
        on conflict (id) do update set heartbeat_at = now()`;
      return tx<{ id: string }[]>`select id from sui_watcher_replicas
        where heartbeat_at > now() - make_interval(secs => ${ttlMs / 1000}) order by id`;
    });
    const next = ownedPartitions(
      replicaId,
      rows.map((r) => r.id),
    );
    if (next.join(",") !== owned.join(",")) {
      log.info({ replicas: rows.length, partitions: next.length }, "sui watcher partitions assigned");
      owned = next;
      generation++;
    }
  }

  return {
    get owned() {
      return owned;
    },
    get generation() {
      return generation;
    },
    async start() {
      await beat();
      const loop = () => {
        timer = setTimeout(async () => {
          try {
            await beat();
          } catch (err) {
            log.warn({ err }, "sui watcher heartbeat failed");
          }
          if (timer) loop();
        }, heartbeatMs);
      };
      loop();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      // Leaving at once hands the partitions over without waiting for the ttl.
      await sql`delete from sui_watcher_replicas where id = ${replicaId}`.catch(() => {});
    },
  };
}
