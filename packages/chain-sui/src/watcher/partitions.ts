// Open deposit addresses hash into this many partitions, each with its own cursor in PostgreSQL.
// Fixed on purpose: changing the number would reshuffle addresses between cursors. 64 spreads
// well over any sensible number of replicas, which split them by the watcher kit's rendezvous.
import { partitionOf } from "@gateway/watcher-kit";

export const PARTITIONS = 64;

export function partitionOfAddress(address: string): number {
  return partitionOf(address, PARTITIONS);
}
