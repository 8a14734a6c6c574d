import { enqueueOutbox, newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerBacklogMetrics, createMetricsRegistry, databaseMetrics } from "./index.js";

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

  it("reads consumers' backlogs once a scrape, for all three gauges", async () => {
    const registry = createMetricsRegistry("test");
    let reads = 0;
    let pending = 7;
    consumerBacklogMetrics(registry, async () => {
      reads += 1;
      return [{ stream: "S_COMMANDS", durable: "payouts-sui", pending, ackPending: 64, redelivered: 2 }];
    });
    const labels = 'stream="S_COMMANDS",durable="payouts-sui",service="test"';
    let text = await registry.metrics();
    expect(reads).toBe(1);
    expect(text).toContain(`gateway_consumer_pending_messages{${labels}} 7`);
    expect(text).toContain(`gateway_consumer_ack_pending_messages{${labels}} 64`);
    expect(text).toContain(`gateway_consumer_redelivered_messages{${labels}} 2`);
    pending = 0;
    text = await registry.metrics();
    expect(reads).toBe(2);
    expect(text).toContain(`gateway_consumer_pending_messages{${labels}} 0`);
  });
});
