// The SDK against the real API, and the example shop end to end in test mode: create an order,
// pay it by simulation, receive the signed webhook, fulfil once.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createTestMerchant, startTestApi, type TestApi, type TestMerchant } from "@gateway/api/testing";
import { createShop } from "@gateway/example-merchant-server";
import { type Notifier, startNotifier } from "@gateway/notifier";
import { createGateway, InvalidRequestError } from "@gateway/sdk";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./processes.js";

let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
let notifier: Notifier;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql, "Example Shop");
  settlement = await startTestSettlement(api);
  notifier = await startNotifier({
    sql: api.db.sql,
    bus: api.deps.bus,
    log: api.deps.log,
    webhookSecretKey: api.deps.config.WEBHOOK_SECRET_KEY,
    allowPrivateWebhooks: true,
    pollMs: 50,
  });
});
afterAll(async () => {
  await notifier.stop();
  await settlement.stop();
  await api.close();
});

describe("SDK against the API", () => {
  it("creates, retrieves and pages through payments; errors are typed", async () => {
    const gateway = createGateway({ apiKey: merchant.liveKey, baseUrl: api.baseUrl });
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(await gateway.payments.create({ amount: 10 + i, currency: "usdc" }));
    expect(created[0]).toMatchObject({
      amount: "10.00",
      currency: "USDC",
      is_test: false,
      status: "pending",
    });
    expect(await gateway.payments.retrieve(created[2]!.id)).toEqual(created[2]);
    const seen = [];
    for await (const p of gateway.payments.list({ limit: 2 })) seen.push(p.id);
    expect(seen).toEqual(created.map((p) => p.id).reverse());
    const err = await gateway.payments.create({ amount: 1.001, currency: "USD" }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err).toMatchObject({ code: "amount_too_precise", param: "amount", status: 400 });
  });

  it("sends the same Idempotency-Key on a retry, so one payment results", async () => {
    const gateway = createGateway({ apiKey: merchant.testKey, baseUrl: api.baseUrl });
    const a = await gateway.payments.create({ amount: 5, currency: "USD" }, { idempotencyKey: "cart-1" });
    const b = await gateway.payments.create({ amount: 5, currency: "USD" }, { idempotencyKey: "cart-1" });
    expect(b.id).toBe(a.id);
  });

  it("makes payment links, reads events and exports CSV as text", async () => {
    const gateway = createGateway({ apiKey: merchant.testKey, baseUrl: api.baseUrl });
    const link = await gateway.paymentLinks.create({ amount: 7, currency: "USD", description: "SDK link" });
    expect((await gateway.paymentLinks.list()).data.map((l) => l.id)).toContain(link.id);
    expect((await gateway.paymentLinks.deactivate(link.id)).active).toBe(false);
    const page = await gateway.events.listPage({ limit: 1 });
    if (page.data[0]) expect((await gateway.events.retrieve(page.data[0].id)).id).toBe(page.data[0].id);
    const to = new Date(Date.now() + 60_000).toISOString();
    const csv = await gateway.exports.payments({ from: new Date(Date.now() - 86_400_000).toISOString(), to });
    expect(csv.split("\r\n")[0]).toMatch(/^payment_id,created_at,/);
  });

  it("covers every merchant operation of the OpenAPI document", async () => {
    type Operation = { operationId: string; security?: unknown[] };
    const doc = (await (await fetch(`${api.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
      security: unknown;
    };
    const merchantOps: string[] = [];
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        const security = JSON.stringify(op.security ?? doc.security);
        if (security.includes("apiKey")) merchantOps.push(op.operationId);
      }
    }
    const sdkOps: Record<string, unknown> = {
      createPayment: "payments.create",
      listPayments: "payments.list",
      getPayment: "payments.retrieve",
      createWebhook: "webhooks.create",
      listWebhooks: "webhooks.list",
      deleteWebhook: "webhooks.delete",
      listWebhookDeliveries: "webhooks.deliveries",
      redeliverWebhook: "webhooks.redeliver",
      testWebhook: "webhooks.test",
      listEvents: "events.list",
      getEvent: "events.retrieve",
      createPaymentLink: "paymentLinks.create",
      listPaymentLinks: "paymentLinks.list",
      deactivatePaymentLink: "paymentLinks.deactivate",
      exportPayments: "exports.payments",
      exportLedger: "exports.ledger",
      exportPayouts: "exports.payouts",
    };
    const gateway = createGateway({ apiKey: merchant.testKey, baseUrl: api.baseUrl });
    const method = (dotted: string) =>
      dotted.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], gateway);
    for (const op of merchantOps) {
      expect(sdkOps[op], `SDK method for ${op}`).toBeDefined();
      expect(typeof method(String(sdkOps[op])), `gateway.${String(sdkOps[op])}`).toBe("function");
    }
  });
});

describe("example shop", () => {
  it("sends the customer to checkout and fulfils the order once on the verified webhook", async () => {
    let secret = "";
    const { app, orders } = createShop({
      gatewayUrl: api.baseUrl,
      apiKey: merchant.testKey,
      webhookSecret: () => secret,
      shopUrl: "http://shop.example",
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const gateway = createGateway({ apiKey: merchant.testKey, baseUrl: api.baseUrl });
      const endpoint = await gateway.webhooks.create({ url: `${shopUrl}/webhooks/gateway`, is_test: true });
      secret = endpoint.secret;

      const order = await fetch(`${shopUrl}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount: "19.99" }),
        redirect: "manual",
      });
      expect(order.status).toBe(303);
      const { order_id: orderId, checkout_url: checkoutUrl } = (await order.json()) as {
        order_id: string;
        checkout_url: string;
      };
      expect(order.headers.get("location")).toBe(checkoutUrl);
      const paymentId = new URL(checkoutUrl).searchParams.get("payment_id")!;

      await gateway.checkout.generateWallet(paymentId, { chain: "sui", coin: "USDC" });
      await gateway.checkout.simulate(paymentId, "paid");
      await waitFor(() => orders.get(orderId)?.status === "paid", {
        what: "order paid by webhook",
        timeoutMs: 15_000,
      });
      const fetched = await (await fetch(`${shopUrl}/orders/${orderId}`)).json();
      expect(fetched).toMatchObject({ status: "paid", amount: "19.99" });

      // A redelivery of the same event is acknowledged and changes nothing.
      const [event] = await api.db.sql<{ id: string }[]>`
        select id from events where payment_id = ${paymentId} and type = 'payment.completed'`;
      await gateway.webhooks.redeliver(endpoint.id, event!.id);
      await waitFor(
        async () =>
          (await gateway.webhooks.deliveries(endpoint.id)).data.some(
            (d) => d.event_id === event!.id && d.attempts >= 2,
          ),
        { what: "redelivery attempted" },
      );
      // A forged webhook is refused.
      const forged = await fetch(`${shopUrl}/webhooks/gateway`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-signature": "t=1,v1=00" },
        body: "{}",
      });
      expect(forged.status).toBe(400);
    } finally {
      server.close();
    }
  });
});

describe("SDK build", () => {
  it("builds ESM and CJS with types and no runtime dependencies", () => {
    const dir = path.join(ROOT, "packages/sdk");
    execFileSync("pnpm", ["run", "build"], { cwd: dir, stdio: "ignore" });
    const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    expect(pkg.dependencies ?? {}).toEqual({});
    const cjs = createRequire(import.meta.url)(path.join(dir, "dist/index.cjs"));
    expect(typeof cjs.createGateway).toBe("function");
    expect(typeof cjs.verifyWebhook).toBe("function");
    const bundled = readFileSync(path.join(dir, "dist/index.js"), "utf8");
    expect(bundled).not.toMatch(/from ["']@gateway\//);
    expect(readFileSync(path.join(dir, "dist/index.d.ts"), "utf8")).toContain("createGateway");
  }, 120_000);
});
