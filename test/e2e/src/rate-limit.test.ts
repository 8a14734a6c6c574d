import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type ServiceProcess, startService, waitForReady } from "./processes.js";

let db: TestDatabase;
let bus: TestBus;
const apis: { proc: ServiceProcess; url: string }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  bus = await createTestBus();
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    const proc = startService("services/api", {
      DATABASE_URL: db.url,
      NATS_URL: bus.natsUrl,
      BUS_PREFIX: bus.prefix,
      PORT: String(port),
      JWT_SECRET: "rate-limit-test-secret-rate-limit-test",
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
      RATE_LIMIT_PER_MINUTE: "10",
    });
    apis.push({ proc, url: `http://127.0.0.1:${port}` });
  }
  await Promise.all(apis.map((a) => waitForReady(`${a.url}/healthz`, a.proc)));
}, 90_000);
afterAll(async () => {
  await Promise.all(apis.map((a) => a.proc.stop()));
  await bus.cleanup();
  await db.drop();
});

describe("rate limit", () => {
  it("holds across two API processes: one client gets 10 requests a minute in total", async () => {
    // Counts live in one-minute windows: start well inside one so the burst is not split.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const statuses: number[] = [];
    const retryAfter: string[] = [];
    // Alternate between the two replicas, as a load balancer would.
    for (let i = 0; i < 16; i++) {
      const res = await fetch(`${apis[i % 2]!.url}/payments`, { headers: { "x-api-key": "gw_test_nope" } });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter.push(res.headers.get("retry-after") ?? "");
        const body = (await res.json()) as { error: unknown };
        expect(body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
      }
    }
    expect(statuses.filter((s) => s !== 429)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    for (const value of retryAfter) {
      expect(Number(value)).toBeGreaterThanOrEqual(1);
      expect(Number(value)).toBeLessThanOrEqual(60);
    }
    // Health checks and the OpenAPI document are not counted.
    expect((await fetch(`${apis[0]!.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${apis[1]!.url}/openapi.json`)).status).toBe(200);
  });
});
