// Watcher replicas split the open addresses by rendezvous hashing over the replicas that
// heartbeat in PostgreSQL. A replica that stops heartbeating drops out of every live
// replica's view within `ttlMs`, and its addresses fall to the others with no hand-over.
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";

export interface ReplicaMembership {
  readonly replicaId: string;
  /** Whether this replica scans `address`. */
  owns(address: string): boolean;
  /** The replica with the smallest id does the work that must happen once (provider registration). */
  isLeader(): boolean;
  live(): readonly string[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ReplicaMembershipOptions {
  sql: Sql;
  log: Logger;
  chain: string;
  replicaId: string;
  heartbeatMs: number;
  /** A replica silent for this long is dead; a few heartbeats. */
  ttlMs: number;
}

/** FNV-1a over the replica id and the address: cheap, stable, well spread for rendezvous. */
function score(replica: string, address: string): number {
  let hash = 0x811c9dc5;
  const text = `${replica}\u0000${address}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // A final avalanche so similar ids do not score alike.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

export function rendezvousOwner(replicas: readonly string[], address: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const replica of replicas) {
    const s = score(replica, address);
    if (s > bestScore || (s === bestScore && best !== undefined && replica < best)) {
      best = replica;
      bestScore = s;
    }
  }
  return best;
}

export function createReplicaMembership(options: ReplicaMembershipOptions): ReplicaMembership {
  const { sql, log, chain, replicaId, heartbeatMs, ttlMs } = options;
  let replicas: string[] = [replicaId];
  let timer: NodeJS.Timeout | undefined;

  async function beat() {
    await sql`
      insert into watcher_replicas (chain, replica_id, heartbeat_at) values (${chain}, ${replicaId}, now())
      on conflict (chain, replica_id) do update set heartbeat_at = now()`;
    const rows = await sql<{ replica_id: string }[]>`
      select replica_id from watcher_replicas
      where chain = ${chain} and heartbeat_at > now() - make_interval(secs => ${ttlMs / 1000})
      order by replica_id`;
    const next = rows.map((r) => r.replica_id);
    if (!next.includes(replicaId)) next.push(replicaId);
    next.sort();
    if (next.join(",") !== replicas.join(",")) log.info({ replicas: next }, "watcher replicas changed");
    replicas = next;
  }

  return {
    replicaId,
    owns: (address) => rendezvousOwner(replicas, address) === replicaId,
    isLeader: () => replicas[0] === replicaId,
    live: () => replicas,
    async start() {
      await beat();
      const tick = () => {
        timer = setTimeout(async () => {
          await beat().catch((err) => log.warn({ err }, "watcher heartbeat failed"));
          if (timer) tick();
        }, heartbeatMs);
      };
      tick();
    },
    async stop() {
      clearTimeout(timer);
      timer = undefined;
      // Leave at once so the others take over without waiting for the ttl.
      await sql`delete from watcher_replicas where chain = ${chain} and replica_id = ${replicaId}`.catch(
        () => {},
      );
    },
  };
}
