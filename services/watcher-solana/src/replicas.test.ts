import { createLogger } from "@gateway/logging";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplicaMembership, rendezvousOwner } from "./replicas.js";

const log = createLogger({ name: "replicas-test", level: "silent" });
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const addresses = Array.from({ length: 3000 }, () => Keypair.generate().publicKey.toBase58());

describe("rendezvous ownership", () => {
  it("gives every address to exactly one replica, spread evenly", () => {
    const replicas = ["a", "b", "c"];
    const counts = new Map<string, number>();
    for (const address of addresses) {
      const owner = rendezvousOwner(replicas, address)!;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const replica of replicas) expect(counts.get(replica)).toBeGreaterThan(800);
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

describe("replica membership", () => {
  it("splits the addresses between live replicas, and a dead one's share moves within the ttl", async () => {
    const options = { sql: db.sql, log, chain: "solana", heartbeatMs: 100, ttlMs: 300 };
    const one = createReplicaMembership({ ...options, replicaId: "r1" });
    const two = createReplicaMembership({ ...options, replicaId: "r2" });
    await one.start();
    await two.start();
    await waitFor(() => one.live().length === 2 && two.live().length === 2, { what: "both see both" });
    const sample = addresses.slice(0, 500);
    for (const address of sample) expect(one.owns(address) !== two.owns(address)).toBe(true);
    expect(one.isLeader()).toBe(true);
    expect(two.isLeader()).toBe(false);

    // r1 dies without a goodbye: its heartbeat row stays but goes stale.
    await one.stop();
    await db.sql`insert into watcher_replicas (chain, replica_id, heartbeat_at) values ('solana', 'r1', now())`;
    const diedAt = Date.now();
    await waitFor(() => sample.every((address) => two.owns(address)), {
      what: "r2 owns everything",
      timeoutMs: 3000,
    });
    expect(Date.now() - diedAt).toBeLessThan(1500);
    expect(two.isLeader()).toBe(true);
    await two.stop();
  });
});
