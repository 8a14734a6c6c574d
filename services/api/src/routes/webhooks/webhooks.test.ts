import { enqueueOutbox, newId } from "@gateway/db";
import { type Notifier, startTestNotifier } from "@gateway/service-harness";
import { startWebhookReceiver, type WebhookReceiver, waitFor } from "@gateway/testkit";
import { verifyWebhook } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let merchant: TestMerchant;
let notifier: Notifier;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
  receiver = await startWebhookReceiver((req) =>
    req.path.includes("fail") ? { status: 500 } : { status: 200 },
  );
  notifier = await startTestNotifier(api, { retryScheduleMs: [60_000] });
});
afterAll(async () => {
  await notifier.stop();
  await receiver.close();
  await api.close();
});

function as(key: string, method: string, path: string, body?: unknown) {
  return call(api.baseUrl, method, path, {
    ...(body === undefined ? {} : { body }),
    headers: { "x-api-key": key },
  });
}

/** What the payments code does for every state change: an events row and its outbox message, in one transaction. */
async function emitEvent(
  merchantId: string,
  mode: "test" | "live",
  type = "payment.completed",
  paymentId: string = crypto.randomUUID(),
) {
  const id = newId("evt");
  const createdAt = new Date();
  const data = { payment: { id: paymentId, status: "completed" } };
  await api.db.sql.begin(async (tx) => {
    await tx`insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
      values (${id}, ${merchantId}, ${mode}, ${type}, ${paymentId}, ${tx.json(data)}, ${createdAt})`;
    await enqueueOutbox(tx, [
      {
        id,
        subject: api.deps.bus.topology.subjects.event(type),
        payload: {
          merchant_id: merchantId,
          mode,
          event: { id, type, created_at: createdAt.toISOString(), is_test: mode === "test", data },
        },
      },
    ]);
  });
  return id;
}

describe("POST /webhooks (happy)", () => {
  it("registers a test endpoint and returns its whsec_ secret once, stored sealed", async () => {
    const res = await as(merchant.testKey, "POST", "/webhooks", {
      url: `${receiver.url}?created`,
      is_test: true,
      events: ["payment.completed", "payment.expired"],
      description: "orders",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      url: `${receiver.url}?created`,
      is_test: true,
      events: ["payment.completed", "payment.expired"],
      description: "orders",
    });
    expect(res.body.id).toMatch(/^whk_/);
    expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    const [stored] = await api.db.sql<{ secret_sealed: Buffer }[]>`
      select secret_sealed from webhook_endpoints where id = ${res.body.id}`;
    expect(stored!.secret_sealed.includes(Buffer.from(res.body.secret))).toBe(false);

    const list = await as(merchant.testKey, "GET", "/webhooks");
    const listed = list.body.data.find((e: { id: string }) => e.id === res.body.id);
    expect(listed).toEqual({
      id: res.body.id,
      url: `${receiver.url}?created`,
      is_test: true,
      events: ["payment.completed", "payment.expired"],
      description: "orders",
      created_at: res.body.created_at,
    });
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
  });

  it("defaults to every event and to the key's mode; a live key's endpoints are its own", async () => {
    const res = await as(merchant.liveKey, "POST", "/webhooks", { url: "http://localhost:1/live" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ is_test: false, events: ["*"], description: null });
    const live = await as(merchant.liveKey, "GET", "/webhooks");
    const test = await as(merchant.testKey, "GET", "/webhooks");
    expect(live.body.data.map((e: { id: string }) => e.id)).toContain(res.body.id);
    expect(test.body.data.map((e: { id: string }) => e.id)).not.toContain(res.body.id);
    expect((await as(merchant.testKey, "DELETE", `/webhooks/${res.body.id}`)).status).toBe(404);
  });

  it("replays the first answer for the same Idempotency-Key", async () => {
    const headers = { "x-api-key": merchant.testKey, "idempotency-key": newId("idem") };
    const body = { url: `${receiver.url}?idem` };
    const first = await call(api.baseUrl, "POST", "/webhooks", { body, headers });
    const second = await call(api.baseUrl, "POST", "/webhooks", { body, headers });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("POST /webhooks with an Idempotency-Key", () => {
  const create = (merchantKey: string, key: string, url: string) =>
    call(api.baseUrl, "POST", "/webhooks", {
      body: { url },
      headers: { "x-api-key": merchantKey, "Idempotency-Key": key },
    });

  it("replays the answer with its secret, while the stored copy holds no secret", async () => {
    const owner = await createTestMerchant(api.db.sql);
    const first = await create(owner.testKey, "hook-replay", `${receiver.url}/replay`);
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const replay = await create(owner.testKey, "hook-replay", `${receiver.url}/replay`);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const stored = await api.db.sql<{ response: string }[]>`
      select response::text as response from idempotency_keys where key = 'hook-replay'`;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.response).toContain(first.body.id);
    expect(stored[0]!.response).not.toContain(first.body.secret);
    expect(stored[0]!.response).not.toContain("whsec_");
  });

  it("replays a refusal as it was stored", async () => {
    const owner = await createTestMerchant(api.db.sql);
    const first = await create(owner.testKey, "hook-refused", "ftp://example.com/hook");
    expect(first.status).toBe(400);
    const replay = await create(owner.testKey, "hook-refused", "ftp://example.com/hook");
    expect(replay.status).toBe(400);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
  });

  it("a retry of a request whose answer was lost gets that endpoint and its secret, not a second one", async () => {
    const owner = await createTestMerchant(api.db.sql);
    const url = `${receiver.url}/lost-answer`;
    const first = await create(owner.testKey, "hook-lost", url);
    expect(first.status).toBe(201);
    // What a request cut off after its commit leaves behind: the endpoint, and no stored answer
    // (a 5xx removes the claim so that the client's retry runs again).
    await api.db.sql`delete from idempotency_keys where key = 'hook-lost'`;
    const retry = await create(owner.testKey, "hook-lost", url);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body.secret).toBe(first.body.secret);
    const endpoints = await api.db.sql`
      select 1 from webhook_endpoints where merchant_id = ${owner.merchantId} and deleted_at is null`;
    expect(endpoints).toHaveLength(1);
    // The endpoint and its audit entry commit together, once: the retry that found it adds none.
    const deleted = await call(api.baseUrl, "DELETE", `/webhooks/${first.body.id}`, {
      headers: { "x-api-key": owner.testKey },
    });
    expect(deleted.status).toBe(200);
    const audit = await api.db.sql<{ action: string; details: { endpoint: string } }[]>`
      select action, details from audit_log where merchant_id = ${owner.merchantId} order by created_at, id`;
    expect(audit.map((a) => [a.action, a.details.endpoint])).toEqual([
      ["webhook.created", first.body.id],
      ["webhook.deleted", first.body.id],
    ]);
  });
});

describe("POST /webhooks (errors)", () => {
  it.each([
    [{}, 400, "parameter_missing", "url"],
    [{ url: "ftp://x.example/" }, 400, "url_invalid", "url"],
    [{ url: "not a url" }, 400, "url_invalid", "url"],
    [{ url: "http://127.0.0.1/x", is_test: "yes" }, 400, "parameter_invalid", "is_test"],
    [{ url: "http://127.0.0.1/x", events: [] }, 400, "parameter_invalid", "events"],
    [
      { url: "http://127.0.0.1/x", events: ["payment.completed", "payment.stolen"] },
      400,
      "parameter_invalid",
      "events[1]",
    ],
    [{ url: "http://127.0.0.1/x", description: 5 }, 400, "parameter_invalid", "description"],
    [{ url: "http://127.0.0.1/x", secret: "mine" }, 400, "parameter_unknown", "secret"],
  ])("%j → %i %s", async (body, status, code, param) => {
    const res = await as(merchant.testKey, "POST", "/webhooks", body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it("refuses a non-object body and a missing key", async () => {
    expect((await as(merchant.testKey, "POST", "/webhooks", [1])).body.error.code).toBe("body_invalid");
    expect((await call(api.baseUrl, "POST", "/webhooks", { body: { url: receiver.url } })).status).toBe(401);
  });
});

describe("webhooks (security)", () => {
  it("a test key registers only test endpoints; a live key only live ones", async () => {
    const test = await as(merchant.testKey, "POST", "/webhooks", {
      url: "https://8.8.8.8/x",
      is_test: false,
    });
    expect(test.status).toBe(403);
    expect(test.body.error).toMatchObject({ code: "mode_forbidden", param: "is_test" });
    const live = await as(merchant.liveKey, "POST", "/webhooks", { url: "https://8.8.8.8/x", is_test: true });
    expect(live.status).toBe(403);
  });

  it("requires https for live endpoints", async () => {
    const res = await as(merchant.liveKey, "POST", "/webhooks", { url: "http://8.8.8.8/x" });
    expect(res.body.error).toMatchObject({ code: "url_invalid", param: "url" });
  });

  it("hides another merchant's endpoints (404) and their deliveries", async () => {
    const other = await createTestMerchant(api.db.sql, "Other");
    const mine = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?mine` });
    for (const [method, path] of [
      ["DELETE", `/webhooks/${mine.body.id}`],
      ["GET", `/webhooks/${mine.body.id}/deliveries`],
      ["POST", `/webhooks/${mine.body.id}/redeliver`],
    ] as const) {
      const res = await as(
        other.testKey,
        method,
        path,
        method === "POST" ? { event_id: "evt_x" } : undefined,
      );
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("resource_not_found");
    }
    expect((await as(other.testKey, "GET", "/webhooks")).body.data).toEqual([]);
  });

  it("caps endpoints per mode", async () => {
    const shop = await createTestMerchant(api.db.sql, "Busy");
    for (let i = 0; i < 16; i++) {
      expect((await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?n=${i}` })).status).toBe(
        201,
      );
    }
    const res = await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?n=16` });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("state_conflict");
    expect((await as(shop.liveKey, "POST", "/webhooks", { url: "http://localhost:1/x" })).status).toBe(201);
  });
});

describe("deliveries, redelivery and deletion", () => {
  it("logs every attempt, and redelivers an event with the same id and body", async () => {
    const shop = await createTestMerchant(api.db.sql, "Logged");
    const created = await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?log` });
    const eventId = await emitEvent(shop.merchantId, "test");
    await emitEvent(shop.merchantId, "live");
    const deliveries = await waitFor(
      async () => {
        const res = await as(shop.testKey, "GET", `/webhooks/${created.body.id}/deliveries`);
        return res.body.data[0]?.status === "succeeded" && res.body;
      },
      { what: "delivery logged" },
    );
    expect(deliveries.data).toHaveLength(1);
    const [delivery] = deliveries.data;
    expect(delivery).toMatchObject({
      endpoint_id: created.body.id,
      event_id: eventId,
      event_type: "payment.completed",
      status: "succeeded",
      attempts: 1,
      next_attempt_at: null,
      last_status_code: 200,
    });
    expect(delivery.attempt_log).toHaveLength(1);
    expect(delivery.attempt_log[0]).toMatchObject({
      attempt: 1,
      status_code: 200,
      response_excerpt: "ok",
      error: null,
    });
    expect(delivery.attempt_log[0].latency_ms).toBeGreaterThanOrEqual(0);

    const first = receiver.received.find((w) => w.headers["x-gateway-event-id"] === eventId)!;
    verifyWebhook({
      payload: first.body,
      header: first.headers["x-gateway-signature"],
      secret: created.body.secret,
    });

    const again = await as(shop.testKey, "POST", `/webhooks/${created.body.id}/redeliver`, {
      event_id: eventId,
    });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: delivery.id, status: "pending" });
    const copies = await waitFor(
      () => {
        const got = receiver.received.filter((w) => w.headers["x-gateway-event-id"] === eventId);
        return got.length === 2 && got;
      },
      { what: "redelivery" },
    );
    expect(copies[1]!.body).toBe(copies[0]!.body);
    await waitFor(async () => {
      const res = await as(
        shop.testKey,
        "GET",
        `/webhooks/${created.body.id}/deliveries?event_id=${eventId}`,
      );
      return res.body.data[0]?.attempts === 2 && res.body.data[0].status === "succeeded";
    });

    const unknown = await as(shop.testKey, "POST", `/webhooks/${created.body.id}/redeliver`, {
      event_id: "evt_nope",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "resource_not_found", param: "event_id" });
    const bad = await as(shop.testKey, "POST", `/webhooks/${created.body.id}/redeliver`, { event_id: 7 });
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "event_id" });
  });

  it("redelivers an older event to an endpoint registered after it, from the event log", async () => {
    const shop = await createTestMerchant(api.db.sql, "Late");
    await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?early` });
    const eventId = await emitEvent(shop.merchantId, "test", "payment.expired");
    // Registered only once the notifier has handled the event (the earlier endpoint got it), so it
    // truly missed it.
    await waitFor(() =>
      receiver.received.some((w) => w.path.includes("early") && w.headers["x-gateway-event-id"] === eventId),
    );
    const created = await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?late` });
    const res = await as(shop.testKey, "POST", `/webhooks/${created.body.id}/redeliver`, {
      event_id: eventId,
    });
    expect(res.status).toBe(202);
    const got = await waitFor(() => receiver.received.find((w) => w.path.includes("late")), {
      what: "late delivery",
    });
    const event = verifyWebhook({
      payload: got.body,
      header: got.headers["x-gateway-signature"],
      secret: created.body.secret,
    });
    expect(event).toMatchObject({ id: eventId, type: "payment.expired", is_test: true });
    // The live key cannot redeliver a test event to a live endpoint.
    const live = await as(shop.liveKey, "POST", "/webhooks", { url: "http://localhost:1/x" });
    expect(
      (await as(shop.liveKey, "POST", `/webhooks/${live.body.id}/redeliver`, { event_id: eventId })).status,
    ).toBe(404);
  });

  it("paginates deliveries newest first", async () => {
    const shop = await createTestMerchant(api.db.sql, "Paged");
    const created = await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?paged` });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await emitEvent(shop.merchantId, "test"));
    const path = `/webhooks/${created.body.id}/deliveries`;
    await waitFor(async () => (await as(shop.testKey, "GET", path)).body.data.length === 3);
    const page1 = await as(shop.testKey, "GET", `${path}?limit=2`);
    expect(page1.body.has_more).toBe(true);
    const page2 = await as(shop.testKey, "GET", `${path}?limit=2&starting_after=${page1.body.data[1].id}`);
    expect(page2.body.has_more).toBe(false);
    const seen = [...page1.body.data, ...page2.body.data].map((d: { event_id: string }) => d.event_id);
    expect(seen.sort()).toEqual([...ids].sort());
    expect((await as(shop.testKey, "GET", `${path}?limit=0`)).body.error.param).toBe("limit");
    expect((await as(shop.testKey, "GET", `${path}?page=2`)).body.error.code).toBe("parameter_unknown");
  });

  it("deletes an endpoint: gone from the list, pending deliveries canceled, nothing more sent", async () => {
    const shop = await createTestMerchant(api.db.sql, "Deleting");
    const created = await as(shop.testKey, "POST", "/webhooks", { url: `${receiver.url}?fail` });
    const eventId = await emitEvent(shop.merchantId, "test");
    await waitFor(async () => {
      const [d] = await api.db.sql<{ attempts: number }[]>`
        select attempts from webhook_deliveries where event_id = ${eventId}`;
      return d?.attempts === 1;
    });
    const del = await as(shop.testKey, "DELETE", `/webhooks/${created.body.id}`);
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expect((await as(shop.testKey, "GET", "/webhooks")).body.data).toEqual([]);
    expect((await as(shop.testKey, "DELETE", `/webhooks/${created.body.id}`)).status).toBe(404);
    const [row] = await api.db.sql<
      { status: string }[]
    >`select status from webhook_deliveries where event_id = ${eventId}`;
    expect(row?.status).toBe("canceled");
  });
});

describe("dashboard JSON (session)", () => {
  it("manages both modes' endpoints with a session token", async () => {
    const shop = await createTestMerchant(api.db.sql, "Dash");
    const token = await api.deps.sessions.issue(shop.ownerId);
    const dash = (method: string, path: string, body?: unknown) =>
      call(api.baseUrl, method, path, {
        ...(body === undefined ? {} : { body }),
        headers: { authorization: `Bearer ${token}` },
      });
    expect(
      (await dash("POST", "/dashboard/api/webhooks", { url: `${receiver.url}?d` })).body.error,
    ).toMatchObject({
      code: "parameter_missing",
      param: "is_test",
    });
    const test = await dash("POST", "/dashboard/api/webhooks", { url: `${receiver.url}?d`, is_test: true });
    const live = await dash("POST", "/dashboard/api/webhooks", {
      url: "http://localhost:1/d",
      is_test: false,
    });
    expect([test.status, live.status]).toEqual([201, 201]);
    expect(live.body.secret).toMatch(/^whsec_/);
    expect((await dash("GET", "/dashboard/api/webhooks")).body.data).toHaveLength(2);
    expect(
      (await dash("GET", "/dashboard/api/webhooks?mode=live")).body.data.map((e: { id: string }) => e.id),
    ).toEqual([live.body.id]);
    expect((await dash("GET", `/dashboard/api/webhooks/${test.body.id}/deliveries`)).body.data).toEqual([]);
    expect((await dash("DELETE", `/dashboard/api/webhooks/${live.body.id}`)).status).toBe(200);
    expect((await call(api.baseUrl, "GET", "/dashboard/api/webhooks")).status).toBe(401);
  });

  it("lists a payment's deliveries over all endpoints, for the payment detail page", async () => {
    const shop = await createTestMerchant(api.db.sql, "Detail");
    const token = await api.deps.sessions.issue(shop.ownerId);
    const auth = { authorization: `Bearer ${token}` };
    await call(api.baseUrl, "POST", "/dashboard/api/webhooks", {
      body: { url: `${receiver.url}?detail`, is_test: true },
      headers: auth,
    });
    const paymentId = crypto.randomUUID();
    const eventId = await emitEvent(shop.merchantId, "test", "payment.completed", paymentId);
    await emitEvent(shop.merchantId, "test");
    const path = `/dashboard/api/webhook-deliveries?payment_id=${paymentId}`;
    const list = await waitFor(async () => {
      const res = await call(api.baseUrl, "GET", path, { headers: auth });
      return res.body.data?.[0]?.status === "succeeded" && res.body;
    });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ event_id: eventId, attempts: 1 });
    expect(list.data[0].attempt_log[0]).toMatchObject({ status_code: 200 });

    const stranger = await createTestMerchant(api.db.sql, "Stranger");
    const other = { authorization: `Bearer ${await api.deps.sessions.issue(stranger.ownerId)}` };
    expect((await call(api.baseUrl, "GET", path, { headers: other })).body.data).toEqual([]);
    const bad = await call(api.baseUrl, "GET", "/dashboard/api/webhook-deliveries?payment_id=x", {
      headers: auth,
    });
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "payment_id" });
  });
});

describe("webhooks (security, production network rules)", () => {
  let strict: TestApi;
  let shop: TestMerchant;
  beforeAll(async () => {
    strict = await startTestApi({ ALLOW_PRIVATE_WEBHOOKS: "false" });
    shop = await createTestMerchant(strict.db.sql, "Strict");
  });
  afterAll(() => strict.close());

  it.each([
    "http://127.0.0.1:3000/hook",
    "http://localhost/hook",
    "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://2130706433/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.8/hook",
    "http://192.168.1.20/hook",
    "http://[fd00::1]/hook",
  ])("refuses %s with url_forbidden, even in test mode", async (url) => {
    const res = await call(strict.baseUrl, "POST", "/webhooks", {
      body: { url },
      headers: { "x-api-key": shop.testKey },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "url_forbidden", param: "url" });
  });

  it("accepts a public address (https for live)", async () => {
    const res = await call(strict.baseUrl, "POST", "/webhooks", {
      body: { url: "https://8.8.8.8/hook" },
      headers: { "x-api-key": shop.liveKey },
    });
    expect(res.status).toBe(201);
    expect(res.body.is_test).toBe(false);
  });
});
