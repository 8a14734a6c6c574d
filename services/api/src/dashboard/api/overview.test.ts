import {
  type Notifier,
  type Settlement,
  startTestNotifier,
  startTestSettlement,
} from "@gateway/service-harness";
import { startWebhookReceiver, type WebhookReceiver, waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let settlement: Settlement;
let notifier: Notifier;
let receiver: WebhookReceiver;
let merchant: TestMerchant;
let session: { authorization: string };
const ids: Record<string, string> = {};

async function payment(outcome: string | null, amount: number, wallet = false) {
  const created = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": merchant.testKey },
    body: { amount, currency: "USD" },
  });
  if (wallet)
    await call(api.baseUrl, "POST", `/payments/checkout/${created.body.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
  if (outcome)
    await call(api.baseUrl, "POST", `/payments/checkout/${created.body.id}/simulate`, { body: { outcome } });
  return created.body.id as string;
}

beforeAll(async () => {
  api = await startTestApi();
  settlement = await startTestSettlement(api);
  notifier = await startTestNotifier(api);
  receiver = await startWebhookReceiver(() => ({ status: 500 }));
  merchant = await createTestMerchant(api.db.sql);
  session = { authorization: `Bearer ${await api.deps.sessions.issue(merchant.ownerId)}` };
  ids.paid = await payment("paid", 20);
  ids.paid2 = await payment("paid", 5.5);
  ids.expired = await payment("expired", 3);
  ids.open = await payment(null, 7, true);
  await waitFor(async () => {
    const rows = await api.db
      .sql`select 1 from payments where id = any(${[ids.paid!, ids.paid2!]}::uuid[]) and status = 'completed'`;
    return rows.length === 2;
  });
  // A test event to an endpoint that answers 500: one attempt, then the delivery has failed.
  const hook = await call(api.baseUrl, "POST", "/webhooks", {
    headers: { "x-api-key": merchant.testKey },
    body: { url: `${receiver.url}?down` },
  });
  ids.endpoint = hook.body.id;
  await call(api.baseUrl, "POST", `/webhooks/${hook.body.id}/test`, {
    headers: { "x-api-key": merchant.testKey },
    body: {},
  });
  await waitFor(
    async () =>
      (
        await api.db
          .sql`select 1 from webhook_deliveries where endpoint_id = ${ids.endpoint!} and status = 'failed'`
      ).length === 1,
  );
});
afterAll(async () => {
  await notifier?.stop();
  await settlement?.stop();
  await receiver?.close();
  await api?.close();
});

const get = (path: string) => call(api.baseUrl, "GET", path, { headers: session });

describe("GET /dashboard/api/overview", () => {
  it("volume per day over 30 days, payments by status, balances, failures", async () => {
    const res = await get("/dashboard/api/overview?mode=test");
    expect(res.status).toBe(200);
    const { volume, by_status, balances, failures } = res.body;
    expect(volume).toHaveLength(30);
    expect(volume.at(-1)).toEqual({
      day: new Date().toISOString().slice(0, 10),
      completed: 2,
      usd_value: "25.50",
    });
    expect(volume.slice(0, -1).every((d: { completed: number }) => d.completed === 0)).toBe(true);
    expect(by_status).toMatchObject({ completed: 2, expired: 1, pending: 1, failed: 0 });
    expect(balances).toContainEqual({ chain: "solana", coin: "USDC", available: "25.20", pending: "0.00" });
    expect(failures).toEqual([
      expect.objectContaining({
        kind: "webhook_delivery",
        id: ids.endpoint,
        summary: expect.stringContaining("webhook.test"),
      }),
    ]);
    const live = await get("/dashboard/api/overview");
    expect(live.body.mode).toBe("live");
    expect(live.body.by_status.completed).toBe(0);
  });
});

describe("GET /dashboard/api/search", () => {
  it("finds a payment by its id, its deposit address or a transaction id, in the mode asked", async () => {
    const byId = await get(`/dashboard/api/search?mode=test&q=${ids.paid}`);
    expect(byId.body.data.map((p: { id: string }) => p.id)).toEqual([ids.paid]);
    const open = await call(api.baseUrl, "GET", `/payments/${ids.open}`, {
      headers: { "x-api-key": merchant.testKey },
    });
    const byAddress = await get(`/dashboard/api/search?mode=test&q=${open.body.deposit_address}`);
    expect(byAddress.body.data.map((p: { id: string }) => p.id)).toEqual([ids.open]);
    // A deposit as a watcher reports it (`<chain>:<signature>:<index>`), written into the state.
    await api.db.sql`update payments set state = jsonb_set(state, '{transfers}',
      '[{"transferId":"solana:5sigOfTheDeposit:0","coin":"USDC","amount":"1000000","sender":"x","status":"seen"}]')
      where id = ${ids.open!}`;
    const byTx = await get("/dashboard/api/search?mode=test&q=5sigOfTheDeposit");
    expect(byTx.body.data.map((p: { id: string }) => p.id)).toEqual([ids.open]);
    const tx = await get(`/dashboard/api/payments/${ids.open}/transactions`);
    expect(tx.body.data).toEqual([
      { kind: "deposit", chain: "solana", txid: "5sigOfTheDeposit", coin: "USDC", amount: "1.00" },
    ]);
    expect((await get(`/dashboard/api/search?mode=live&q=${ids.paid}`)).body.data).toEqual([]);
    expect((await get("/dashboard/api/search?mode=test&q=nothing-like-it")).body.data).toEqual([]);
    const empty = await get("/dashboard/api/search?q=");
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ param: "q" });
  });

  it("another merchant's payments are not found", async () => {
    const other = await createTestMerchant(api.db.sql, "Other");
    const token = await api.deps.sessions.issue(other.ownerId);
    const res = await call(api.baseUrl, "GET", `/dashboard/api/search?mode=test&q=${ids.paid}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.body.data).toEqual([]);
    const tx = await call(api.baseUrl, "GET", `/dashboard/api/payments/${ids.paid}/transactions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(tx.status).toBe(404);
  });
});
