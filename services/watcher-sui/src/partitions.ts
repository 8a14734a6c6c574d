import { createHash } from "node:crypto";

/**
 * Open deposit addresses hash into this many partitions. Fixed on purpose: each partition has
 * its own cursor in PostgreSQL, so changing the number would reshuffle addresses between
 * cursors. 64 spreads well over any sensible number of replicas.
 */
export const PARTITIONS = 64;

function hash32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

export function partitionOf(address: string): number {
  return hash32(address) % PARTITIONS;
}

/**
 * Rendezvous hashing: each partition goes to the replica with the highest score for it, so a
 * replica joining or leaving moves only the partitions it wins or held.
 */
export function ownedPartitions(self: string, replicas: readonly string[]): number[] {
  const owned: number[] = [];
  for (let partition = 0; partition < PARTITIONS; partition++) {
    let best: string | undefined;
    let bestScore = -1;
    for (const replica of replicas) {
      const score = hash32(`${partition}:${replica}`);
      if (score > bestScore || (score === bestScore && best !== undefined && replica < best)) {
        best = replica;
        bestScore = score;
      }
    }
    if (best === self) owned.push(partition);
  }
  return owned;
}
