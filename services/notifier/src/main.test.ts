import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectBus } from "@gateway/bus";
import { newId } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { createLogger } from "@gateway/logging";
import {
  createTestBus,
  createTestDatabase,
  startWebhookReceiver,
  type TestBus,
  type TestDatabase,
  type WebhookReceiver,
  waitFor,
} from "@gateway/testkit";
import { generateEndpointSecret, parseSecretKey, sealSecret } from "@gateway/webhook-endpoints";
import { verifyWebhook } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The notifier as it is deployed: its own process, configured by the environment only.
const KEY_B64 = Buffer.alloc(32, 3).toString("base64");
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
let db: TestDatabase;
let testBus: TestBus;
let receiver: WebhookReceiver;
let failing: WebhookReceiver;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  db = await createTestDatabase();
  testBus = await createTestBus();
  receiver = await startWebhookReceiver();
  failing = await startWebhookReceiver((_req, n) => (n === 0 ? { status: 503 } : { status: 200 }));
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await receiver.close();
  await failing.close();
  await testBus.cleanup();
  await db.drop();
});

/** Starts `tsx src/main.ts` with only environment configuration; resolves once /readyz says ok. */
async function spawnNotifier() {
  const healthPort = await freePort();
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: packageDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      NATS_URL: testBus.natsUrl,
      BUS_PREFIX: testBus.prefix,
      HEALTH_PORT: String(healthPort),
      WEBHOOK_SECRET_KEY: KEY_B64,
      ALLOW_PRIVATE_WEBHOOKS: "true",
      NOTIFIER_RETRY_SCHEDULE_MS: "3000",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.stdout?.on("data", (c: Buffer) => (output += c));
  child.stderr?.on("data", (c: Buffer) => (output += c));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  const ready = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
      return res.status === 200 && res.json();
    },
    { timeoutMs: 30_000, what: `readyz (output: ${output})` },
  );
  return { child, exited, ready, healthPort };
}

async function endpointFor(url: string) {
  const merchantId = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${merchantId}, ${`${merchantId}@example.com`}, 'Proc', 'x')`;
  const endpointId = newId("whk");
  const secret = generateEndpointSecret();
  await db.sql`insert into webhook_endpoints (id, merchant_id, mode, url, secret_sealed)
    values (${endpointId}, ${merchantId}, 'test', ${url}, ${sealSecret(parseSecretKey(KEY_B64), endpointId, secret)})`;
  return { merchantId, secret };
}

async function publish(merchantId: string) {
  const log = createLogger({ name: "test", level: "silent" });
  const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  const event = {
    id: newId("evt"),
    type: "payment.expired",
    created_at: new Date().toISOString(),
    is_test: true,
    data: {},
  };
  await bus.js.publish(
    bus.topology.subjects.event(event.type),
    JSON.stringify({ merchant_id: merchantId, mode: "test", event }),
    { msgID: event.id },
  );
  await bus.close();
  return event;
}

describe("notifier process", () => {
  it("reports ready, delivers a signed event, and stops cleanly on SIGTERM", async () => {
    const notifier = await spawnNotifier();
    expect(notifier.ready).toEqual({ status: "ok", database: "ok", nats: "ok", delivery: "ok" });
    const { merchantId, secret } = await endpointFor(receiver.url);
    const event = await publish(merchantId);
    const got = await waitFor(() => receiver.received[0], { what: "delivery" });
    expect(verifyWebhook({ payload: got.body, header: got.headers["x-gateway-signature"], secret })).toEqual(
      event,
    );
    const metrics = await waitFor(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${notifier.healthPort}/metrics`)).text();
        return /gateway_webhook_attempts_total\{[^}]*outcome="succeeded"[^}]*\} [1-9]/.test(text) && text;
      },
      { what: "delivery counted in /metrics" },
    );
    expect(metrics).toContain("gateway_webhook_latency_seconds");
    expect(metrics).toContain("gateway_webhook_deliveries_pending");
    notifier.child.kill("SIGTERM");
    expect(await notifier.exited).toBe(0);
  }, 60_000);

  it("killed (SIGKILL) between attempts, a new process makes the next attempt on schedule, once", async () => {
    const first = await spawnNotifier();
    const { merchantId } = await endpointFor(failing.url);
    const event = await publish(merchantId);
    await waitFor(
      async () =>
        (await db.sql`select 1 from webhook_deliveries where event_id = ${event.id} and attempts = 1`)
          .length === 1,
      { what: "first attempt recorded" },
    );
    first.child.kill("SIGKILL");
    await first.exited;
    expect(failing.received).toHaveLength(1);

    const second = await spawnNotifier();
    await waitFor(() => failing.received.length >= 2, { what: "second attempt", timeoutMs: 15_000 });
    await waitFor(
      async () =>
        (await db.sql`select 1 from webhook_deliveries where event_id = ${event.id} and status = 'succeeded'`)
          .length === 1,
      { what: "succeeded" },
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(failing.received.map((w) => w.headers["x-gateway-event-id"])).toEqual([event.id, event.id]);
    expect(failing.received[1]!.receivedAt - failing.received[0]!.receivedAt).toBeGreaterThanOrEqual(2_900);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 60_000);
});
