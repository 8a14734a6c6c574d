import { enqueueOutbox, newId } from "@gateway/db";
import { type Notifier, startTestNotifier } from "@gateway/service-harness";
import { startWebhookReceiver, type WebhookReceiver, waitFor } from "@gateway/testkit";
import { verifyWebhook } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let notifier: Notifier;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
  other = await createTestMerchant(api.db.sql, "Other Shop");
  receiver = await startWebhookReceiver(() => ({ status: 200 }));
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

/** What the payments code writes for a state change: the event row and its outbox message. */
async function emitEvent(
  merchantId: string,
  mode: "test" | "live",
  type = "payment.completed",
  createdAt = new Date(),
) {
  const id = newId("evt");
  const paymentId = crypto.randomUUID();
  const data = { payment: { id: paymentId, status: type.slice("payment.".length), amount: "10.00" } };
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

describe("GET /events", () => {
  it("answers the bodies the webhooks carried, newest first", async () => {
    const hook = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?events` });
    expect(hook.status).toBe(201);
    const first = await emitEvent(merchant.merchantId, "test", "payment.completed");
    const second = await emitEvent(merchant.merchantId, "test", "payment.expired");
    await waitFor(() => receiver.received.filter((r) => r.path.endsWith("?events")).length === 2);

    const list = await as(merchant.testKey, "GET", "/events?limit=2");
    expect(list.status).toBe(200);
    expect(list.body.object).toBe("list");
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([second, first]);
    for (const delivered of receiver.received.filter((r) => r.path.endsWith("?events"))) {
      const event = verifyWebhook({
        payload: delivered.body,
        header: delivered.headers["x-gateway-signature"],
        secret: hook.body.secret,
      });
      const one = await as(merchant.testKey, "GET", `/events/${event.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(event);
      expect(list.body.data).toContainEqual(event);
    }
  });

  it("pages with limit and starting_after, without skipping or repeating", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await emitEvent(other.merchantId, "test", "payment.completed"));
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await as(
        other.testKey,
        "GET",
        `/events?limit=2${after ? `&starting_after=${after}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      if (!page.body.has_more) break;
      after = seen.at(-1);
    }
    expect(seen).toEqual(ids.reverse());
  });

  it("filters by type; an unknown type is a 400", async () => {
    await emitEvent(merchant.merchantId, "test", "payment.underpaid");
    const only = await as(merchant.testKey, "GET", "/events?type=payment.underpaid");
    expect(only.body.data.length).toBeGreaterThan(0);
    expect(only.body.data.every((e: { type: string }) => e.type === "payment.underpaid")).toBe(true);
    const bad = await as(merchant.testKey, "GET", "/events?type=payment.nope");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "type" });
  });

  it("shows the key's mode only: the other mode's and other merchants' events are 404", async () => {
    const live = await emitEvent(merchant.merchantId, "live");
    const test = await emitEvent(merchant.merchantId, "test");
    expect((await as(merchant.liveKey, "GET", `/events/${live}`)).status).toBe(200);
    expect((await as(merchant.testKey, "GET", `/events/${live}`)).status).toBe(404);
    expect((await as(other.testKey, "GET", `/events/${test}`)).status).toBe(404);
    const testList = await as(merchant.testKey, "GET", "/events?limit=100");
    expect(testList.body.data.map((e: { id: string }) => e.id)).not.toContain(live);
    expect(testList.body.data.every((e: { is_test: boolean }) => e.is_test)).toBe(true);
    const cursor = await as(merchant.testKey, "GET", `/events?starting_after=${live}`);
    expect(cursor.status).toBe(404);
    expect(cursor.body.error).toMatchObject({ code: "resource_not_found", param: "starting_after" });
  });

  it("keeps events for 30 days", async () => {
    const old = await emitEvent(
      merchant.merchantId,
      "test",
      "payment.completed",
      new Date(Date.now() - 31 * 86_400_000),
    );
    expect((await as(merchant.testKey, "GET", `/events/${old}`)).status).toBe(404);
    const list = await as(merchant.testKey, "GET", "/events?limit=100");
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(old);
  });

  it("needs an API key", async () => {
    const res = await call(api.baseUrl, "GET", "/events");
    expect(res.status).toBe(401);
  });
});

describe("POST /webhooks/:id/test", () => {
  it("delivers a signed webhook.test event at once to that endpoint only, logged as a delivery", async () => {
    const hook = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?test-target` });
    const bystander = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?bystander` });
    expect(bystander.status).toBe(201);
    const res = await as(merchant.testKey, "POST", `/webhooks/${hook.body.id}/test`, {});
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      endpoint_id: hook.body.id,
      event_type: "webhook.test",
      status: "pending",
    });

    await waitFor(() => receiver.received.some((r) => r.path.endsWith("?test-target")));
    const got = receiver.received.find((r) => r.path.endsWith("?test-target"))!;
    const event = verifyWebhook({
      payload: got.body,
      header: got.headers["x-gateway-signature"],
      secret: hook.body.secret,
    });
    expect(event).toMatchObject({
      id: res.body.event_id,
      type: "webhook.test",
      is_test: true,
      data: { webhook_endpoint: { id: hook.body.id, url: `${receiver.url}?test-target` } },
    });
    expect(receiver.received.some((r) => r.path.endsWith("?bystander"))).toBe(false);

    await waitFor(async () => {
      const log = await as(merchant.testKey, "GET", `/webhooks/${hook.body.id}/deliveries`);
      const delivery = log.body.data.find((d: { event_id: string }) => d.event_id === event.id);
      return delivery?.status === "succeeded" && delivery.attempt_log.length === 1;
    });
    expect((await as(merchant.testKey, "GET", `/events/${event.id}`)).body).toEqual(event);
  });

  it("the dashboard's button does the same with the session", async () => {
    const hook = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?dash` });
    const token = await api.deps.sessions.issue(merchant.ownerId);
    const res = await call(api.baseUrl, "POST", `/dashboard/api/webhooks/${hook.body.id}/test`, {
      body: {},
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(202);
    await waitFor(() => receiver.received.some((r) => r.path.endsWith("?dash")));
    const got = receiver.received.find((r) => r.path.endsWith("?dash"))!;
    const event = verifyWebhook({
      payload: got.body,
      header: got.headers["x-gateway-signature"],
      secret: hook.body.secret,
    });
    expect(event).toMatchObject({ id: res.body.event_id, type: "webhook.test", is_test: true });
  });

  it("a deleted endpoint, the other mode's and another merchant's are 404", async () => {
    const hook = await as(merchant.testKey, "POST", "/webhooks", { url: `${receiver.url}?gone` });
    expect((await as(merchant.liveKey, "POST", `/webhooks/${hook.body.id}/test`, {})).status).toBe(404);
    expect((await as(other.testKey, "POST", `/webhooks/${hook.body.id}/test`, {})).status).toBe(404);
    expect((await as(merchant.testKey, "DELETE", `/webhooks/${hook.body.id}`)).status).toBe(200);
    const res = await as(merchant.testKey, "POST", `/webhooks/${hook.body.id}/test`, {});
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "resource_not_found", param: "id" });
  });
});
