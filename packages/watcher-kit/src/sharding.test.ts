import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ownedPartitions, partitionOf, rendezvousOwner } from "./sharding.js";

const addresses = Array.from({ length: 3000 }, () => randomBytes(32).toString("hex"));

describe("rendezvous ownership of addresses", () => {
  it("gives every address to exactly one replica, spread evenly", () => {
    const replicas = ["a", "b", "c"];
    const counts = new Map<string, number>();
    for (const address of addresses) {
      const owner = rendezvousOwner(replicas, address)!;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const replica of replicas) expect(counts.get(replica)).toBeGreaterThan(800);
    expect(rendezvousOwner([], addresses[0]!)).toBeUndefined();
  });

  it("moves only the departed replica's addresses", () => {
    const before = addresses.map((a) => rendezvousOwner(["a", "b", "c"], a));
    const after = addresses.map((a) => rendezvousOwner(["a", "c"], a));
    addresses.forEach((_, i) => {
      if (before[i] !== "b") expect(after[i]).toBe(before[i]);
      else expect(after[i]).not.toBe("b");
    });
  });
});

describe("partitions", () => {
  const PARTITIONS = 64;

  it("splits every partition to exactly one live replica and moves few when one joins", () => {
    const two = ["a", "b"];
    const a = ownedPartitions("a", two, PARTITIONS);
    const b = ownedPartitions("b", two, PARTITIONS);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual([...Array(PARTITIONS).keys()]);
    expect(a.length).toBeGreaterThan(10);
    expect(b.length).toBeGreaterThan(10);
    const three = ["a", "b", "c"];
    const moved = a.filter((p) => !ownedPartitions("a", three, PARTITIONS).includes(p));
    expect(moved.every((p) => ownedPartitions("c", three, PARTITIONS).includes(p))).toBe(true);
  });

  it("keeps an address in the partition its stored cursor belongs to", () => {
    // sha256-based and fixed: these values are what the Sui watcher's cursors were written under.
    expect(partitionOf(`0x${"0".repeat(63)}1`, PARTITIONS)).toBe(
      partitionOf(`0x${"0".repeat(63)}1`, PARTITIONS),
    );
    expect(partitionOf("abc", PARTITIONS)).toBe(0xba7816bf % PARTITIONS);
    const counts = new Array<number>(PARTITIONS).fill(0);
    for (const address of addresses) counts[partitionOf(address, PARTITIONS)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(20);
  });
});
