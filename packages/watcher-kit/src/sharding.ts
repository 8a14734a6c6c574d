// How watcher replicas split work with no coordinator: rendezvous (highest random weight)
// hashing. Every replica computes the same owner for a key from the same list of live replicas,
// and a replica joining or leaving moves only the keys it wins or held.
import { createHash } from "node:crypto";

/** FNV-1a over the replica id and the key: cheap, stable, well spread for rendezvous. */
function score(replica: string, key: string): number {
  let hash = 0x811c9dc5;
  const text = `${replica}\u0000${key}`;
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

/** The replica that owns `key` (an address, a partition number), or undefined with no replicas. */
export function rendezvousOwner(replicas: readonly string[], key: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const replica of replicas) {
    const s = score(replica, key);
    if (s > bestScore || (s === bestScore && best !== undefined && replica < best)) {
      best = replica;
      bestScore = s;
    }
  }
  return best;
}

/**
 * The partition of an address among `partitions`, for watchers that keep state per partition (a
 * cursor). sha256 rather than the rendezvous score: the mapping is stored with that state, so it
 * must never change, whatever the rendezvous function becomes.
 */
export function partitionOf(address: string, partitions: number): number {
  return createHash("sha256").update(address).digest().readUInt32BE(0) % partitions;
}

/** The partitions of `0 … partitions − 1` that `self` owns among `replicas`. */
export function ownedPartitions(self: string, replicas: readonly string[], partitions: number): number[] {
  const owned: number[] = [];
  for (let partition = 0; partition < partitions; partition++) {
    if (rendezvousOwner(replicas, String(partition)) === self) owned.push(partition);
  }
  return owned;
}
