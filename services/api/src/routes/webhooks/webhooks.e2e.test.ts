import {
  type Notifier,
  type Settlement,
  startTestNotifier,
  startTestSettlement,
} from "@gateway/service-harness";
import { startWebhookReceiver, type WebhookReceiver, waitFor } from "@gateway/testkit";
import { buildSignatureHeader, verifyWebhook, WebhookVerificationError } from "@gateway/webhook-signature";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

// Issue 5's end-to-end acceptance: a simulated test payment reaches a real HTTP receiver, signed.
let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
let notifier: Notifier;
let receiver: WebhookReceiver;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql, "E2E Shop");
  settlement = await startTestSettlement(api);
  notifier = await startTestNotifier(api);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await notifier.stop();
  await settlement.stop();
  await receiver.close();
  await api.close();
});

function asMerchant(method: string, path: string, body?: unknown) {
  return call(api.baseUrl, method, path, {
    ...(body === undefined ? {} : { body }),
    headers: { "x-api-key": merchant.testKey },
  });
}

describe("webhooks end to end", () => {
  it("delivers payment.completed of a simulated test payment with a signature the helper accepts", async () => {
    const endpoint = await asMerchant("POST", "/webhooks", { url: receiver.url, is_test: true });
    expect(endpoint.status).toBe(201);
    const secret: string = endpoint.body.secret;

    const payment = await asMerchant("POST", "/payments", { amount: 12.5, currency: "USD" });
    expect(payment.status).toBe(201);
    await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    const sim = await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(sim.status).toBe(202);

    const webhook = await waitFor(
      () => receiver.received.find((w) => w.headers["x-gateway-event-type"] === "payment.completed"),
      { what: "payment.completed webhook", timeoutMs: 15_000 },
    );
    const header = webhook.headers["x-gateway-signature"];
    const event = verifyWebhook<{ payment: { id: string; status: string } }>({
      payload: webhook.body,
      header,
      secret,
    });
    expect(event).toMatchObject({ type: "payment.completed", is_test: true });
    expect(event.id).toMatch(/^evt_/);
    expect(webhook.headers["x-gateway-event-id"]).toBe(event.id);
    expect(event.data.payment).toMatchObject({ id: payment.body.id, status: "completed" });
    // The event is the one in the event log, and the merchant's API agrees with it.
    const [logged] = await api.db.sql<{ id: string }[]>`
      select id from events where payment_id = ${payment.body.id} and type = 'payment.completed'`;
    expect(logged?.id).toBe(event.id);
    expect((await asMerchant("GET", `/payments/${payment.body.id}`)).body.status).toBe("completed");

    // A forged amount or a replay after five minutes is refused.
    const tampered = webhook.body.replace('"status":"completed"', '"status":"completed" ');
    expect(() => verifyWebhook({ payload: tampered, header, secret })).toThrow(WebhookVerificationError);
    const sixMinutesLater = new Date(Date.now() + 6 * 60_000);
    expect(() => verifyWebhook({ payload: webhook.body, header, secret, now: sixMinutesLater })).toThrow(
      expect.objectContaining({ code: "timestamp_outside_tolerance" }),
    );
    const oldHeader = buildSignatureHeader(secret, Math.floor(Date.now() / 1000) - 301, webhook.body);
    expect(() => verifyWebhook({ payload: webhook.body, header: oldHeader, secret })).toThrow(
      expect.objectContaining({ code: "timestamp_outside_tolerance" }),
    );

    // The delivery log shows the attempt.
    const deliveries = await waitFor(async () => {
      const res = await asMerchant("GET", `/webhooks/${endpoint.body.id}/deliveries?event_id=${event.id}`);
      return res.body.data[0]?.status === "succeeded" && res.body.data;
    });
    expect(deliveries[0].attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200 });
  }, 30_000);
});
