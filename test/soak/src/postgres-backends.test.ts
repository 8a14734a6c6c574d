import { createSql } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendsByApplication } from "./postgres-backends.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe("PostgreSQL's backends by application", () => {
  it("counts each application's connections and the memory their backends allocated", async () => {
    const name = `soak-probe-${process.pid}`;
    const service = createSql({ url: db.url, max: 2, applicationName: name });
    try {
      // Two connections: one in a transaction, the other running a query meanwhile.
      await service.begin(async (tx) => {
        await tx`select 1`;
        const busy = service`select pg_sleep(0.5)`.execute();
        await new Promise((resolve) => setTimeout(resolve, 100));
        const groups = await backendsByApplication(db.sql);
        await busy;
        expect(groups[name]?.connections).toBe(2);
        // Each backend allocates some hundreds of kB for itself before any query.
        expect(groups[name]!.bytes).toBeGreaterThan(256 * 1024);
        // Not the asking connection's own backend; PostgreSQL's own processes under their type.
        expect(groups.checkpointer?.connections).toBe(1);
        // The soak hands in what it already read of each process, and that is what is added up.
        const given = await backendsByApplication(db.sql, async () => 1000);
        expect(given[name]).toEqual({ connections: 2, bytes: 2000 });
      });
    } finally {
      await service.end();
    }
  });
});
