// Watcher replicas of a chain heartbeat into `watcher_replicas`; each reads the live ones (a
// heartbeat younger than the ttl) and splits the work by rendezvous hashing over them. A replica
// that stops heartbeating drops out of every live replica's view within the ttl, and its share
// falls to the others with no hand-over step.
import type { Chain } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { type Repeating, repeatEvery } from "./repeat.js";
import { rendezvousOwner } from "./sharding.js";

export interface ReplicaMembership {
  readonly replicaId: string;
  /** Live replica ids, sorted; this replica is always among them. */
  live(): readonly string[];
  /** Bumped every time the live set changes, so users recompute what they own. */
  generation(): number;
  /** Whether this replica owns `key` (an address, a partition) among the live replicas. */
  owns(key: string): boolean;
  /** The replica with the smallest id does the work that must happen once (provider registration). */
  isLeader(): boolean;
  start(): Promise<void>;
  /** Leaves at once (deletes its row), so the others take over without waiting for the ttl. */
  stop(): Promise<void>;
}

export interface ReplicaMembershipOptions {
  sql: Sql;
  log: Logger;
  chain: Chain;
  replicaId: string;
  heartbeatMs: number;
  /** A replica silent for this long is dead; a few heartbeats. */
  ttlMs: number;
}

export function createReplicaMembership(options: ReplicaMembershipOptions): ReplicaMembership {
  const { sql, log, chain, replicaId, heartbeatMs, ttlMs } = options;
  let replicas: readonly string[] = [replicaId];
  let generation = 0;
  let heartbeat: Repeating | undefined;

  async function beat() {
    const rows = await sql.begin(async (tx) => {
      await tx`insert into watcher_replicas (chain, replica_id, heartbeat_at) values (${chain}, ${replicaId}, now())
        on conflict (chain, replica_id) do update set heartbeat_at = now()`;
      return tx<{ replica_id: string }[]>`select replica_id from watcher_replicas
        where chain = ${chain} and heartbeat_at > now() - make_interval(secs => ${ttlMs / 1000})`;
    });
    const next = rows.map((r) => r.replica_id);
    if (!next.includes(replicaId)) next.push(replicaId);
    next.sort();
    if (next.join(",") !== replicas.join(",")) {
      log.info({ chain, replicas: next }, "watcher replicas changed");
      replicas = next;
      generation++;
    }
  }

  return {
    replicaId,
    live: () => replicas,
    generation: () => generation,
    owns: (key) => rendezvousOwner(replicas, key) === replicaId,
    isLeader: () => replicas[0] === replicaId,
    async start() {
      await beat();
      heartbeat = repeatEvery(heartbeatMs, beat, (err) =>
        log.warn({ err, chain }, "watcher heartbeat failed"),
      );
    },
    async stop() {
      // A beat still under way would otherwise write the row back after the delete.
      await heartbeat?.stop();
      await sql`delete from watcher_replicas where chain = ${chain} and replica_id = ${replicaId}`.catch(
        () => {},
      );
    },
  };
}
