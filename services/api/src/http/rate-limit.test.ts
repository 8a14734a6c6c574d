import { createSql, type Sql } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimiter } from "./rate-limit.js";

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
});
