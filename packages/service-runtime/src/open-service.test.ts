import { settlementConfigSchema } from "@gateway/config";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openService } from "./open-service.js";

let db: TestDatabase;
let testBus: TestBus;
beforeAll(async () => {
  db = await createTestDatabase();
  testBus = await createTestBus();
});
afterAll(async () => {
  await testBus.cleanup();
  await db.drop();
});

/** Opens a service with these variables set, runs `use`, and closes it again. */
async function withService(
  env: Record<string, string>,
  use: (name: string, run: () => Promise<void>) => Promise<void>,
) {
  const saved = { ...process.env };
  const name = `pool-probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    NATS_URL: testBus.natsUrl,
    BUS_PREFIX: testBus.prefix,
    LOG_LEVEL: "silent",
    ...env,
  });
  try {
    // Settlement's variables: every service's schema holds the infrastructure ones.
    const service = await openService(name, settlementConfigSchema, { databaseConnections: 5 });
    try {
      // Eight queries at once, each holding its connection for a moment.
      await use(name, async () => {
        await Promise.all(Array.from({ length: 8 }, () => service.sql`select pg_sleep(0.2)`));
      });
    } finally {
      await service.bus.close();
      await service.sql.end({ timeout: 5 });
    }
  } finally {
    process.env = saved;
  }
}

async function connectionsOf(name: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity where application_name = ${name}`;
  return row!.n;
}

describe("a service's PostgreSQL pool", () => {
  it("holds the service's own number of connections, or DATABASE_POOL_SIZE when the operator sets it", async () => {
    await withService({}, async (name, run) => {
      await run();
      expect(await connectionsOf(name)).toBe(5);
    });
    await withService({ DATABASE_POOL_SIZE: "2" }, async (name, run) => {
      await run();
      expect(await connectionsOf(name)).toBe(2);
    });
  });
});
