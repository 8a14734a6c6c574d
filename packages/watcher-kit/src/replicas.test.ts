import { randomBytes } from "node:crypto";
import { createLogger } from "@gateway/logging";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplicaMembership } from "./replicas.js";

const log = createLogger({ name: "replicas-test", level: "silent" });
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const sample = Array.from({ length: 500 }, () => randomBytes(32).toString("hex"));

describe("replica membership", () => {
  it("splits the keys between live replicas, and a dead one's share moves within the ttl", async () => {
    const options = { sql: db.sql, log, chain: "solana", heartbeatMs: 100, ttlMs: 300 } as const;
    const one = createReplicaMembership({ ...options, replicaId: "r1" });
    const two = createReplicaMembership({ ...options, replicaId: "r2" });
    await one.start();
    await two.start();
    await waitFor(() => one.live().length === 2 && two.live().length === 2, { what: "both see both" });
    for (const key of sample) expect(one.owns(key) !== two.owns(key)).toBe(true);
    expect(one.isLeader()).toBe(true);
    expect(two.isLeader()).toBe(false);
    const generation = two.generation();

    // r1 dies without a goodbye: its heartbeat row stays but goes stale.
    await one.stop();
    await db.sql`insert into watcher_replicas (chain, replica_id, heartbeat_at) values ('solana', 'r1', now())`;
    const diedAt = Date.now();
    await waitFor(() => sample.every((key) => two.owns(key)), {
      what: "r2 owns everything",
      timeoutMs: 3000,
    });
    expect(Date.now() - diedAt).toBeLessThan(1500);
    expect(two.isLeader()).toBe(true);
    expect(two.generation()).toBeGreaterThan(generation);
    await two.stop();
  });

  it("keeps each chain's replicas apart", async () => {
    // The test before leaves r1's last heartbeat behind, live for up to a ttl after it ends.
    await db.sql`delete from watcher_replicas`;
    const options = { sql: db.sql, log, heartbeatMs: 100, ttlMs: 300 } as const;
    const solana = createReplicaMembership({ ...options, chain: "solana", replicaId: "s1" });
    const sui = createReplicaMembership({ ...options, chain: "sui", replicaId: "u1" });
    await solana.start();
    await sui.start();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(solana.live()).toEqual(["s1"]);
    expect(sui.live()).toEqual(["u1"]);
    for (const key of sample.slice(0, 50)) {
      expect(solana.owns(key)).toBe(true);
      expect(sui.owns(key)).toBe(true);
    }
    await solana.stop();
    await sui.stop();
    expect(await db.sql`select 1 from watcher_replicas where replica_id in ('s1', 'u1')`).toHaveLength(0);
  });
});
