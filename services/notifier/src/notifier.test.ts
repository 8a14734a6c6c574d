import { type Bus, connectBus } from "@gateway/bus";
import { createSql, newId } from "@gateway/db";
import type { Mode } from "@gateway/domain";
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
import { verifyWebhook, WebhookVerificationError } from "@gateway/webhook-signature";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEventIngest } from "./ingest.js";
import { type Notifier, type NotifierOptions, startNotifier } from "./notifier.js";

const KEY_B64 = Buffer.alloc(32, 9).toString("base64");
const log = createLogger({ name: "notifier-test", level: "silent" });
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "notifier-test", log });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  // Each test starts with no pending work left by the previous one.
  await db.sql`update webhook_deliveries set status = 'canceled' where status = 'pending'`;
});
afterAll(async () => {
  await bus.close();
  await testBus.cleanup();
  await db.drop();
});

async function merchant(): Promise<string> {
  const id = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${id}, ${`${id}@example.com`}, 'Shop', 'x')`;
  return id;
}

async function endpoint(
  merchantId: string,
  url: string,
  { mode = "test" as Mode, events = null as string[] | null } = {},
) {
  const id = newId("whk");
  const secret = generateEndpointSecret();
  await db.sql`insert into webhook_endpoints (id, merchant_id, mode, url, events, secret_sealed)
    values (${id}, ${merchantId}, ${mode}, ${url}, ${events}, ${sealSecret(parseSecretKey(KEY_B64), id, secret)})`;
  return { id, secret };
}

async function publishEvent(
  merchantId: string,
  {
    mode = "test" as Mode,
    type = "payment.completed",
    id = newId("evt"),
    msgId = undefined as string | undefined,
  } = {},
) {
  const event = {
    id,
    type,
    created_at: new Date().toISOString(),
    is_test: mode === "test",
    data: { payment: { id: "6f1c2a9e-4b7d-4e21-9a3f-0c5d8e7b1a24", status: "completed", amount: "12.50" } },
  };
  await bus.js.publish(
    bus.topology.subjects.event(type),
    JSON.stringify({ merchant_id: merchantId, mode, event }),
    { msgID: msgId ?? id },
  );
  return event;
}

async function notifier(options: Partial<NotifierOptions> = {}): Promise<Notifier> {
  const n = await startNotifier({
    sql: db.sql,
    bus,
    log,
    webhookSecretKey: KEY_B64,
    allowPrivateWebhooks: true,
    deliveryTimeoutMs: 2_000,
    pollMs: 50,
    ...options,
  });
  cleanups.push(() => n.stop());
  return n;
}

async function receiver(...args: Parameters<typeof startWebhookReceiver>): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(...args);
  cleanups.push(() => r.close());
  return r;
}

async function attemptsOf(eventId: string) {
  return db.sql<
    { attempt: number; status_code: number | null; error: string | null; response_excerpt: string | null }[]
  >`
    select a.attempt, a.status_code, a.error, a.response_excerpt from webhook_delivery_attempts a
    join webhook_deliveries d on d.id = a.delivery_id where d.event_id = ${eventId} order by a.attempt, a.id`;
}

async function deliveryOf(eventId: string) {
  const [row] = await db.sql<{ status: string; attempts: number }[]>`
    select status, attempts from webhook_deliveries where event_id = ${eventId}`;
  return row;
}

/**
 * Rows of webhook_deliveries read by sequential scans so far, and rows updated, as the statistics
 * tell it now (a backend reports them at a commit a second or more after its last report).
 */
async function deliveriesStats(): Promise<{ seqRead: number; updated: number }> {
  const [row] = await db.sql.begin(async (tx) => {
    await tx`select pg_stat_clear_snapshot()`;
    return tx<{ read: string; updated: string }[]>`
      select seq_tup_read::text as read, n_tup_upd::text as updated
      from pg_stat_user_tables where relname = 'webhook_deliveries'`;
  });
  return { seqRead: Number(row?.read ?? 0), updated: Number(row?.updated ?? 0) };
}

/**
 * Every row written to the deliveries and their attempts from now on, as it happens (statistics
 * lag by seconds): table, operation, the delivery's endpoint, and the statement that wrote it.
 */
async function countWrites(): Promise<
  (endpointId: string) => Promise<{ rows: string[]; statements: number }>
> {
  await db.sql.unsafe(`
    create table if not exists delivery_writes (tbl text, op text, endpoint_id text, stmt text);
    create or replace function count_delivery_write() returns trigger language plpgsql as $$
      begin
        insert into delivery_writes values (tg_table_name, tg_op,
          coalesce(to_jsonb(new)->>'endpoint_id',
                   (select endpoint_id from webhook_deliveries where id = to_jsonb(new)->>'delivery_id')),
          pg_backend_pid() || ':' || statement_timestamp());
        return null;
      end $$;
    create or replace trigger count_delivery_write after insert or update on webhook_deliveries
      for each row execute function count_delivery_write();
    create or replace trigger count_delivery_write after insert on webhook_delivery_attempts
      for each row execute function count_delivery_write();`);
  cleanups.push(() =>
    db.sql.unsafe(`drop trigger count_delivery_write on webhook_deliveries;
      drop trigger count_delivery_write on webhook_delivery_attempts;`),
  );
  return async (endpointId) => {
    const rows = await db.sql<{ w: string; stmt: string }[]>`
      select tbl || ' ' || op as w, stmt from delivery_writes where endpoint_id = ${endpointId}`;
    return { rows: rows.map((r) => r.w).sort(), statements: new Set(rows.map((r) => r.stmt)).size };
  };
}

describe("notifier", () => {
  it("records outcomes without reading the whole deliveries table, however much it grew since it was small", async () => {
    // One connection, so the statements are prepared, and their generic plans made, while the
    // table is small; then it grows by 20,000 finished deliveries.
    const single = createSql({ url: db.url, max: 1, applicationName: "notifier-plan-test" });
    cleanups.push(() => single.end());
    const mer = await merchant();
    const rx = await receiver();
    const { id: endpointId } = await endpoint(mer, `${rx.url}`);
    await notifier({ sql: single, durable: "notifier-plans" });
    for (let i = 0; i < 8; i++) {
      const event = await publishEvent(mer);
      await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", {
        what: `delivery ${i} recorded`,
      });
    }
    await db.sql`
      insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
      select 'whd_bulk_' || g, ${endpointId}, 'evt_bulk_' || g, 'payment.completed', '{}', 'succeeded', now()
      from generate_series(1, 20000) g`;
    // A backend reports its statistics at a commit at least a second after its last report.
    await new Promise((r) => setTimeout(r, 1_100));
    const before = await deliveriesStats();
    const last = await publishEvent(mer);
    await waitFor(async () => (await deliveryOf(last.id))?.status === "succeeded", { what: "last delivery" });
    await new Promise((r) => setTimeout(r, 1_100));
    // Another delivery commits on the notifier's connection, so what the last one read is reported.
    const following = await publishEvent(mer);
    await waitFor(async () => (await deliveryOf(following.id))?.status === "succeeded", {
      what: "one more delivery",
    });
    const after = await deliveriesStats();
    // The last delivery's outcome is in the statistics read, so its reads are too.
    expect(after.updated - before.updated).toBeGreaterThanOrEqual(1);
    expect(after.seqRead - before.seqRead).toBeLessThan(1_000);
  });

  it("POSTs the event with a signature the helper accepts, and the documented headers", async () => {
    const mer = await merchant();
    const r = await receiver();
    const { secret } = await endpoint(mer, r.url);
    await notifier();
    const event = await publishEvent(mer);
    const [got] = await waitFor(() => r.received.length >= 1 && r.received, { what: "webhook" });
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["x-gateway-event-id"]).toBe(event.id);
    expect(got!.headers["x-gateway-event-type"]).toBe("payment.completed");
    expect(JSON.parse(got!.body)).toEqual(event);
    const header = got!.headers["x-gateway-signature"];
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook({ payload: got!.body, header, secret })).toEqual(event);

    const tampered = got!.body.replace("12.50", "1250.00");
    expect(() => verifyWebhook({ payload: tampered, header, secret })).toThrow(WebhookVerificationError);
    const later = new Date(Date.now() + 6 * 60_000);
    expect(() => verifyWebhook({ payload: got!.body, header, secret, now: later })).toThrow(
      /more than 300 s/,
    );

    await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", { what: "succeeded" });
    expect(await attemptsOf(event.id)).toEqual([
      { attempt: 1, status_code: 200, error: null, response_excerpt: "ok" },
    ]);
  });

  it("delivers only to endpoints of the same merchant and mode that subscribed to the type", async () => {
    const mer = await merchant();
    const other = await merchant();
    const r = await receiver();
    const all = await endpoint(mer, `${r.url}?all`);
    await endpoint(mer, `${r.url}?completed`, { events: ["payment.completed"] });
    await endpoint(mer, `${r.url}?live`, { mode: "live" });
    await endpoint(other, `${r.url}?other`);
    await notifier();
    await publishEvent(mer, { type: "payment.expired" });
    await publishEvent(mer, { type: "payment.completed" });
    await waitFor(() => r.received.length >= 3, { what: "3 webhooks" });
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received.map((w) => `${w.path} ${w.headers["x-gateway-event-type"]}`).sort()).toEqual([
      "/hooks?all payment.completed",
      "/hooks?all payment.expired",
      "/hooks?completed payment.completed",
    ]);
    expect(all.id).toMatch(/^whk_/);
  });

  it("acks a malformed event message without holding back the next ones", async () => {
    const mer = await merchant();
    const r = await receiver();
    await endpoint(mer, r.url);
    await notifier();
    await bus.js.publish(
      bus.topology.subjects.event("payment.completed"),
      JSON.stringify({ merchant_id: mer }),
      {
        msgID: newId("evt"),
      },
    );
    const event = await publishEvent(mer);
    await waitFor(() => r.received.length === 1, { what: "valid event" });
    expect(r.received[0]!.headers["x-gateway-event-id"]).toBe(event.id);
    const info = await bus.jsm.consumers.info(bus.topology.streams.events, "notifier");
    await waitFor(
      async () =>
        (await bus.jsm.consumers.info(bus.topology.streams.events, "notifier")).num_ack_pending === 0,
      {
        what: `all acked (${info.num_ack_pending} pending)`,
      },
    );
  });

  it("ingests one delivery per endpoint when one batch carries an event twice under two message ids", async () => {
    const mer = await merchant();
    await endpoint(mer, "http://127.0.0.1:9/never");
    const ingest = createEventIngest({ sql: db.sql, log, retryWindowMs: 60_000 });
    const event = { id: newId("evt"), type: "payment.completed", created_at: "", is_test: true, data: {} };
    const message = (id: string) => ({
      id,
      subject: "x",
      deliveryCount: 1,
      data: { merchant_id: mer, mode: "test", event },
    });
    expect(await ingest.ingestBatch([message(newId("m")), message(newId("m"))])).toBe(1);
    expect(await ingest.ingestBatch([message(newId("m"))])).toBe(0);
    const rows = await db.sql`select 1 from webhook_deliveries where event_id = ${event.id}`;
    expect(rows).toHaveLength(1);
  });

  it("a replayed event changes no row; a manual redelivery that raced ahead gets the full window once", async () => {
    const mer = await merchant();
    const first = await endpoint(mer, "http://127.0.0.1:9/never");
    await endpoint(mer, "http://127.0.0.1:9/also-never");
    const ingest = createEventIngest({ sql: db.sql, log, retryWindowMs: 60_000 });
    const message = (eventId: string, type = "payment.completed") => eventMessage(mer, eventId, type);
    // xmin changes with every update of a row, so equal versions mean the row was left alone.
    const versions = (eventIds: string[]) => db.sql<{ v: string; window_ms: number }[]>`
      select xmin::text || ':' || id as v,
        extract(epoch from retry_until - created_at)::float8 * 1000 as window_ms
      from webhook_deliveries where event_id = any(${eventIds}) order by id`;
    const handled = newId("evt");
    expect(await ingest.ingestBatch([message(handled)])).toBe(2);
    const before = await versions([handled]);
    const fresh = newId("evt");
    expect(await ingest.ingestBatch([message(handled), message(fresh)])).toBe(2);
    expect(await versions([handled])).toEqual(before);
    expect(await versions([fresh])).toHaveLength(2);

    // The API's redelivery made one endpoint's delivery first, with a one-attempt window.
    const raced = newId("evt");
    await db.sql`insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
      values (${newId("whd")}, ${first.id}, ${raced}, 'payment.completed', '{}', 'pending', now())`;
    expect(await ingest.ingestBatch([message(raced)])).toBe(1);
    const widened = await versions([raced]);
    expect(widened.map((r) => r.window_ms)).toEqual([60_000, 60_000]);
    expect(await ingest.ingestBatch([message(raced)])).toBe(0);
    expect(await versions([raced])).toEqual(widened);

    // A test event is for the endpoint it was sent to, which the API delivers itself.
    expect(await ingest.ingestBatch([message(newId("evt"), "webhook.test")])).toBe(0);
  });

  it("delivers an event once even when it is published twice or handled by two replicas", async () => {
    const mer = await merchant();
    const r = await receiver();
    await endpoint(mer, r.url);
    await notifier();
    await notifier();
    const ids = Array.from({ length: 60 }, () => newId("evt"));
    for (const id of ids) await publishEvent(mer, { id });
    await publishEvent(mer, { id: ids[0]! });
    await waitFor(() => r.received.length >= 60, { what: "60 webhooks" });
    await new Promise((res) => setTimeout(res, 500));
    const seen = r.received.map((w) => w.headers["x-gateway-event-id"]);
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
  });

  it("retries a failing receiver on the schedule, with the same event id and body, logging every attempt", async () => {
    const mer = await merchant();
    const r = await receiver((_req, n) =>
      n < 2 ? { status: 500, body: n === 0 ? 'boom "0", {NULL}\\ ☕' : "NULL" } : { status: 204 },
    );
    await endpoint(mer, r.url);
    await notifier({ retryScheduleMs: [300, 600] });
    const event = await publishEvent(mer);
    await waitFor(() => r.received.length >= 3, { what: "third attempt", timeoutMs: 10_000 });
    const [a, b, c] = r.received;
    expect(new Set(r.received.map((w) => w.headers["x-gateway-event-id"]))).toEqual(new Set([event.id]));
    expect(new Set(r.received.map((w) => w.body)).size).toBe(1);
    expect(b!.receivedAt - a!.receivedAt).toBeGreaterThanOrEqual(280);
    expect(c!.receivedAt - b!.receivedAt).toBeGreaterThanOrEqual(580);
    await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", { what: "succeeded" });
    expect((await attemptsOf(event.id)).map((x) => [x.attempt, x.status_code, x.response_excerpt])).toEqual([
      [1, 500, 'boom "0", {NULL}\\ ☕'],
      [2, 500, "NULL"],
      [3, 204, ""],
    ]);
  });

  it("does not hold an endpoint's later events behind its failing one", async () => {
    const mer = await merchant();
    let poisoned = "";
    const r = await receiver((req) =>
      req.headers["x-gateway-event-id"] === poisoned ? { status: 500 } : { status: 200 },
    );
    await endpoint(mer, r.url);
    await notifier({ retryScheduleMs: [60_000] });
    poisoned = newId("evt");
    const sentAt = Date.now();
    await publishEvent(mer, { id: poisoned });
    const later = [await publishEvent(mer), await publishEvent(mer)];
    await waitFor(
      () => later.every((e) => r.received.some((w) => w.headers["x-gateway-event-id"] === e.id)),
      {
        what: "later events",
      },
    );
    expect(Date.now() - sentAt).toBeLessThan(2_000);
    expect((await deliveryOf(poisoned))?.status).toBe("pending");
  });

  it("keeps the schedule across a restart: a new notifier makes the next attempt, once", async () => {
    const mer = await merchant();
    const r = await receiver((_req, n) => (n === 0 ? { status: 503 } : { status: 200 }));
    await endpoint(mer, r.url);
    const first = await notifier({ retryScheduleMs: [1_500] });
    const event = await publishEvent(mer);
    await waitFor(async () => (await deliveryOf(event.id))?.attempts === 1, {
      what: "first attempt recorded",
    });
    await first.stop();
    await new Promise((res) => setTimeout(res, 2_000));
    expect(r.received).toHaveLength(1);
    await notifier({ retryScheduleMs: [1_500] });
    await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", { what: "delivered" });
    await new Promise((res) => setTimeout(res, 300));
    expect(r.received.map((w) => w.headers["x-gateway-event-id"])).toEqual([event.id, event.id]);
    expect((await attemptsOf(event.id)).map((x) => x.status_code)).toEqual([503, 200]);
  });

  it("gives up as failed once the next attempt would fall past the retry window", async () => {
    const mer = await merchant();
    const r = await receiver(() => ({ status: 410 }));
    await endpoint(mer, r.url);
    await notifier({ retryScheduleMs: [200], retryWindowMs: 700 });
    const event = await publishEvent(mer);
    await waitFor(async () => (await deliveryOf(event.id))?.status === "failed", {
      what: "failed",
      timeoutMs: 5_000,
    });
    const attempts = (await deliveryOf(event.id))!.attempts;
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(4);
    expect(r.received).toHaveLength(attempts);
  });

  it("keeps a healthy endpoint fast while another endpoint hangs or refuses connections", async () => {
    const mer = await merchant();
    const dead = await receiver(() => "hang");
    const healthy = await receiver();
    await endpoint(mer, dead.url);
    await endpoint(mer, "http://127.0.0.1:9/refused");
    await endpoint(mer, healthy.url);
    await notifier({ deliveryTimeoutMs: 10_000, endpointConcurrency: 8, concurrency: 64 });
    const sentAt = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const id = newId("evt");
      sentAt.set(id, Date.now());
      await publishEvent(mer, { id });
      if (i % 10 === 9) await new Promise((res) => setTimeout(res, 50));
    }
    await waitFor(() => healthy.received.length >= 100, {
      what: "100 healthy deliveries",
      timeoutMs: 10_000,
    });
    const lags = healthy.received.map(
      (w) => w.receivedAt - sentAt.get(String(w.headers["x-gateway-event-id"]))!,
    );
    expect(Math.max(...lags)).toBeLessThan(1_000);
    // The hanging endpoint holds at most its share of slots.
    expect(dead.received.length).toBeLessThanOrEqual(8);
  }, 30_000);

  it("fills an endpoint's share in one pass, and hands the rest back once", async () => {
    const mer = await merchant();
    const slow = await receiver(() => "hang");
    const { id: endpointId } = await endpoint(mer, slow.url);
    const writes = await countWrites();
    // Inserted due before any worker runs, so the worker's claim takes them.
    const ingest = createEventIngest({ sql: db.sql, log, retryWindowMs: 60_000 });
    const events = Array.from({ length: 10 }, () => eventMessage(mer, newId("evt")));
    expect(await ingest.ingestBatch(events)).toBe(10);
    await notifier({ deliveryTimeoutMs: 10_000, endpointConcurrency: 4, concurrency: 64 });
    await waitFor(() => slow.received.length >= 4, {
      what: "the endpoint's share in flight",
      timeoutMs: 5_000,
    });
    await new Promise((res) => setTimeout(res, 500));
    const updates = (await writes(endpointId)).rows.filter((w) => w.endsWith("UPDATE"));
    expect(slow.received.length).toBe(4);
    // Each delivery claimed once (10) and six handed back once: a pass that started fewer than
    // the share would claim and hand back the same rows pass after pass.
    expect(updates.length).toBeGreaterThanOrEqual(4);
    expect(updates.length).toBeLessThanOrEqual(16);
  }, 30_000);

  it("takes new deliveries from the ingest up to an endpoint's share, and claims none of the rest while it is full", async () => {
    const mer = await merchant();
    const slow = await receiver(() => "hang");
    const { id: endpointId } = await endpoint(mer, slow.url);
    const writes = await countWrites();
    await notifier({ deliveryTimeoutMs: 10_000, endpointConcurrency: 4, concurrency: 64 });
    for (let i = 0; i < 10; i++) await publishEvent(mer);
    await waitFor(() => slow.received.length >= 4, {
      what: "the endpoint's share in flight",
      timeoutMs: 5_000,
    });
    await new Promise((res) => setTimeout(res, 500));
    expect(slow.received.length).toBe(4);
    expect((await writes(endpointId)).rows).toEqual(Array(10).fill("webhook_deliveries INSERT"));
    const [due] = await db.sql<{ claimed: number; unclaimed: number }[]>`
      select count(*) filter (where claim_token is not null)::int as claimed,
        count(*) filter (where claim_token is null and next_attempt_at <= now())::int as unclaimed
      from webhook_deliveries where endpoint_id = ${endpointId} and status = 'pending'`;
    expect(due).toEqual({ claimed: 4, unclaimed: 6 });
  }, 30_000);

  it("delivers a new event in two statements on its first attempt, and writes nothing for a replay of it", async () => {
    const mer = await merchant();
    const r = await receiver();
    const { id: endpointId } = await endpoint(mer, r.url);
    const writes = await countWrites();
    await notifier();
    const events = [];
    for (let i = 0; i < 5; i++) {
      const event = await publishEvent(mer);
      events.push(event);
      await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", { what: `event ${i}` });
    }
    const delivered = await writes(endpointId);
    // Per event: the delivery inserted already claimed, then its outcome and attempt in one statement.
    expect(delivered.rows).toEqual([
      ...Array(5).fill("webhook_deliveries INSERT"),
      ...Array(5).fill("webhook_deliveries UPDATE"),
      ...Array(5).fill("webhook_delivery_attempts INSERT"),
    ]);
    expect(delivered.statements).toBe(10);
    // Published again under other message ids, as a relay restarting from an older cursor does.
    for (const event of events) await publishEvent(mer, { id: event.id, msgId: newId("m") });
    await waitFor(
      async () => {
        const info = await bus.jsm.consumers.info(bus.topology.streams.events, "notifier");
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      { what: "replays acked" },
    );
    await new Promise((res) => setTimeout(res, 300));
    expect(await writes(endpointId)).toEqual(delivered);
    expect(r.received).toHaveLength(5);
  });

  it("attempts a delivery inserted claimed by a process that died once its lease runs out, not before", async () => {
    const mer = await merchant();
    const r = await receiver();
    await endpoint(mer, r.url);
    // The ingest of a process that died right after its insert: the attempts never started.
    const died = {
      claim: { token: "died", leaseMs: 1_500 },
      reserve: (endpointIds: string[]) => endpointIds.map(() => true),
      unreserve: () => {},
      startReserved: () => {},
    };
    const ingest = createEventIngest({ sql: db.sql, log, retryWindowMs: 60_000, worker: died });
    const event = { id: newId("evt"), type: "payment.completed", created_at: "", is_test: true, data: {} };
    const insertedAt = Date.now();
    expect(
      await ingest.ingestBatch([
        { id: event.id, subject: "x", deliveryCount: 1, data: { merchant_id: mer, mode: "test", event } },
      ]),
    ).toBe(1);
    await notifier();
    await new Promise((res) => setTimeout(res, 700));
    expect(r.received).toHaveLength(0);
    await waitFor(async () => (await deliveryOf(event.id))?.status === "succeeded", { what: "delivered" });
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.receivedAt - insertedAt).toBeGreaterThanOrEqual(1_400);
  });

  it("re-checks the address at delivery time and never connects to a forbidden one", async () => {
    const mer = await merchant();
    const r = await receiver();
    // Registered while private addresses were allowed; this notifier does not allow them.
    await endpoint(mer, r.url);
    await notifier({ allowPrivateWebhooks: false, retryScheduleMs: [60_000] });
    const event = await publishEvent(mer);
    await waitFor(async () => (await deliveryOf(event.id))?.attempts === 1, { what: "attempt" });
    const [attempt] = await attemptsOf(event.id);
    expect(attempt).toMatchObject({ status_code: null });
    expect(attempt!.error).toMatch(/forbidden/);
    expect(r.received).toHaveLength(0);
  });

  it("does not follow redirects, and records a timeout as a failed attempt", async () => {
    const mer = await merchant();
    const r = await receiver((req) =>
      req.path.includes("slow") ? { status: 200, delayMs: 1_500 } : { status: 302 },
    );
    await endpoint(mer, `${r.url}?redirect`);
    await endpoint(mer, `${r.url}?slow`);
    await notifier({ deliveryTimeoutMs: 500, retryScheduleMs: [60_000] });
    const event = await publishEvent(mer);
    await waitFor(async () => (await attemptsOf(event.id)).length === 2, { what: "two attempts" });
    const attempts = await attemptsOf(event.id);
    expect(attempts.map((a) => a.status_code ?? a.error).sort()).toEqual([302, "timed out after 500 ms"]);
    expect(
      (await db.sql`select status from webhook_deliveries where event_id = ${event.id}`).map((d) => d.status),
    ).toEqual(["pending", "pending"]);
  });
});

/** An event message as the relay publishes it, under a message id of its own. */
function eventMessage(merchantId: string, eventId: string, type = "payment.completed") {
  return {
    id: newId("m"),
    subject: "x",
    deliveryCount: 1,
    data: {
      merchant_id: merchantId,
      mode: "test",
      event: { id: eventId, type, created_at: "", is_test: true, data: {} },
    },
  };
}
