// Open deposit addresses hash into this many partitions, each with its own cursor in PostgreSQL;
// fixed, since changing the number would reshuffle addresses between cursors. No Solana
// counterpart: its watcher follows signatures per address, not one sequence of checkpoints.
import { ownedPartitions, partitionOf, type ReplicaMembership } from "@gateway/watcher-kit";

/** Spreads well over any sensible number of replicas, which split them by rendezvous (watcher-kit). */
export const PARTITIONS = 64;

export function partitionOfAddress(address: string): number {
  return partitionOf(address, PARTITIONS);
}

/** The partitions this replica owns, recomputed when the live replicas change. */
export function ownedBy(replicaId: string, membership: ReplicaMembership): () => readonly number[] {
  let owned: { generation: number; partitions: readonly number[] } = { generation: -1, partitions: [] };
  return () => {
    if (owned.generation !== membership.generation()) {
      owned = {
        generation: membership.generation(),
        partitions: ownedPartitions(replicaId, membership.live(), PARTITIONS),
      };
    }
    return owned.partitions;
  };
}
