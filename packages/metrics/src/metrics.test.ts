import { enqueueOutbox, newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsRegistry, databaseMetrics } from "./index.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe("metrics", () => {
  it("exposes default metrics and the outbox lag read from PostgreSQL", async () => {
    const registry = createMetricsRegistry("test");
    databaseMetrics(registry, db.sql);
    await enqueueOutbox(db.sql, [{ id: newId("evt"), subject: "x", payload: {} }]);
    const text = await registry.metrics();
    expect(text).toMatch(/gateway_outbox_pending\{service="test"\} 1/);
    expect(text).toMatch(/gateway_outbox_lag_seconds\{service="test"\} [\d.]+/);
    expect(text).toContain("nodejs_eventloop_lag_seconds");
  });
});
