import { createSql, type Sql } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter, leaseCap } from "./rate-limit.js";

let db: TestDatabase;
let otherPool: Sql;
beforeAll(async () => {
  db = await createTestDatabase();
  otherPool = createSql({ url: db.url, max: 4 });
});
afterAll(async () => {
  await otherPool.end();
  await db.drop();
});

describe("rate limiter", () => {
  it("counts every one of many concurrent hits from two replicas exactly once", async () => {
    const replicas = [createRateLimiter(db.sql), createRateLimiter(otherPool)];
    const waits = await Promise.all(
      Array.from({ length: 60 }, (_, i) => replicas[i % 2]!.hit("ip:burst", 25, 3600)),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(25);
    for (const w of waits.filter((w) => w > 0)) {
      expect(w).toBeGreaterThanOrEqual(1);
      expect(w).toBeLessThanOrEqual(3600);
    }
    const [row] = await db.sql<{ hits: number }[]>`
      select hits from rate_limit_counters where bucket = 'ip:burst'`;
    expect(row?.hits).toBe(60);
  });

  it("keeps buckets apart inside one batch", async () => {
    const limiter = createRateLimiter(db.sql);
    const hits = ["ip:a", "ip:b", "ip:a", "ip:c", "ip:a", "ip:b"].map((bucket) => limiter.hit(bucket, 2));
    expect(await Promise.all(hits)).toEqual([0, 0, 0, 0, expect.any(Number), 0]);
    expect((await limiter.hit("ip:b", 2)) > 0).toBe(true);
    expect(await limiter.hit("ip:c", 2)).toBe(0);
  });

  const hitsOf = async (bucket: string) =>
    (await db.sql<{ hits: number }[]>`select hits from rate_limit_counters where bucket = ${bucket}`).map(
      (r) => r.hits,
    );

  it("counts a busy bucket ahead under a raised limit, never behind the requests let through", async () => {
    expect([leaseCap(100), leaseCap(199), leaseCap(200), leaseCap(10_000), leaseCap(1e8)]).toEqual([
      0, 0, 2, 100, 256,
    ]);
    const limiter = createRateLimiter(db.sql);
    for (let i = 0; i < 300; i++) expect(await limiter.hit("ip:busy", 10_000, 3600)).toBe(0);
    const [hits] = await hitsOf("ip:busy");
    // Leases of 1, 2, 4, … 64, then 100 at a time: counted ahead, by less than one lease.
    expect(hits).toBeGreaterThan(300);
    expect(hits).toBeLessThanOrEqual(300 + leaseCap(10_000));
  });

  it("lets no more than the limit through from two replicas leasing ahead, and little less", async () => {
    const replicas = [createRateLimiter(db.sql), createRateLimiter(otherPool)];
    const limit = 400; // a lease of up to 4
    const waits: number[] = [];
    for (let round = 0; round < 25; round++) {
      waits.push(
        ...(await Promise.all(
          Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.hit("ip:leased", limit, 3600)),
        )),
      );
    }
    const allowed = waits.filter((w) => w === 0).length;
    expect(allowed).toBeLessThanOrEqual(limit);
    expect(allowed).toBeGreaterThanOrEqual(limit - 2 * leaseCap(limit));
    expect((await hitsOf("ip:leased"))[0]).toBeGreaterThanOrEqual(500);
  });

  it("starts every window with no lease", async () => {
    const limiter = createRateLimiter(db.sql);
    for (let i = 0; i < 40; i++) await limiter.hit("ip:windows", 100_000, 1);
    // Into the next one-second window, with nothing of the last one's lease carried over.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    expect(await limiter.hit("ip:windows", 100_000, 1)).toBe(0);
    const [row] = await db.sql<{ hits: number }[]>`
      select hits from rate_limit_counters where bucket = 'ip:windows' order by window_start desc limit 1`;
    expect(row?.hits).toBe(1);
  });
});
