// The isolation matrix: merchant A × merchant B, test × live. Every object is reachable only by
// its owner in its own mode; anyone else gets 404 (never 403, which would confirm it exists), and
// list endpoints never show it.
import {
  call,
  createTestMerchant,
  startTestApi,
  type TestApi,
  type TestMerchant,
} from "@gateway/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let api: TestApi;
type Caller = {
  name: string;
  merchant: "A" | "B";
  mode: "test" | "live" | "dashboard";
  headers: Record<string, string>;
};
let callers: Caller[];
let A: TestMerchant;
let B: TestMerchant;

interface Owned {
  id: string;
  merchant: "A" | "B";
  mode: "test" | "live";
}
const payments: Owned[] = [];
const endpoints: Owned[] = [];

beforeAll(async () => {
  api = await startTestApi();
  A = await createTestMerchant(api.db.sql, "Shop A");
  B = await createTestMerchant(api.db.sql, "Shop B");
  callers = [
    { name: "A test key", merchant: "A", mode: "test", headers: { "x-api-key": A.testKey } },
    { name: "A live key", merchant: "A", mode: "live", headers: { "x-api-key": A.liveKey } },
    { name: "B test key", merchant: "B", mode: "test", headers: { "x-api-key": B.testKey } },
    { name: "B live key", merchant: "B", mode: "live", headers: { "x-api-key": B.liveKey } },
    {
      name: "A dashboard",
      merchant: "A",
      mode: "dashboard",
      headers: { authorization: `Bearer ${await api.deps.sessions.issue(A.ownerId)}` },
    },
    {
      name: "B dashboard",
      merchant: "B",
      mode: "dashboard",
      headers: { authorization: `Bearer ${await api.deps.sessions.issue(B.ownerId)}` },
    },
  ];
  for (const c of callers.filter((c) => c.mode !== "dashboard")) {
    const mode = c.mode as "test" | "live";
    const p = await call(api.baseUrl, "POST", "/payments", {
      headers: c.headers,
      body: { amount: 5, currency: "USD" },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    payments.push({ id: p.body.id, merchant: c.merchant, mode });
    const w = await call(api.baseUrl, "POST", "/webhooks", {
      headers: c.headers,
      body: { url: `http://127.0.0.1:9/${c.merchant}-${mode}` },
    });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    endpoints.push({ id: w.body.id, merchant: c.merchant, mode });
  }
});
afterAll(() => api?.close());

/** May this caller see this object? Keys see their own merchant's objects of their own mode. */
function mayKey(c: Caller, o: Owned): boolean {
  return c.merchant === o.merchant && c.mode === o.mode;
}
function mayDashboard(c: Caller, o: Owned): boolean {
  return c.merchant === o.merchant;
}

function idsIn(body: unknown): string[] {
  const data = (body as { data?: { id: string }[] }).data ?? [];
  return data.map((d) => d.id);
}

describe("isolation matrix", () => {
  it("payments: read by id and list, per merchant and mode", async () => {
    let checked = 0;
    for (const c of callers) {
      const dashboard = c.mode === "dashboard";
      for (const p of payments) {
        const path = dashboard ? `/dashboard/api/payments/${p.id}` : `/payments/${p.id}`;
        const res = await call(api.baseUrl, "GET", path, { headers: c.headers });
        const allowed = dashboard ? mayDashboard(c, p) : mayKey(c, p);
        expect(res.status, `${c.name} GET ${path} (${p.merchant} ${p.mode})`).toBe(allowed ? 200 : 404);
        if (!allowed) expect(res.body.error.code).toBe("resource_not_found");
        checked++;
      }
      const lists = dashboard
        ? [`/dashboard/api/payments?mode=test&limit=100`, `/dashboard/api/payments?mode=live&limit=100`]
        : ["/payments?limit=100"];
      const seen = new Set<string>();
      for (const l of lists) {
        const res = await call(api.baseUrl, "GET", l, { headers: c.headers });
        expect(res.status, `${c.name} ${l} ${JSON.stringify(res.body)}`).toBe(200);
        for (const id of idsIn(res.body)) seen.add(id);
      }
      for (const p of payments) {
        const allowed = dashboard ? mayDashboard(c, p) : mayKey(c, p);
        if (!allowed) expect(seen.has(p.id), `${c.name} list shows ${p.merchant} ${p.mode}`).toBe(false);
        if (allowed && !dashboard) expect(seen.has(p.id), `${c.name} list misses its own`).toBe(true);
      }
    }
    expect(checked).toBe(callers.length * payments.length);
  });

  it("webhook endpoints and their deliveries: list, deliveries, redeliver, delete", async () => {
    for (const c of callers) {
      const prefix = c.mode === "dashboard" ? "/dashboard/api/webhooks" : "/webhooks";
      const list = await call(api.baseUrl, "GET", prefix, { headers: c.headers });
      expect(list.status).toBe(200);
      const seen = new Set(idsIn(list.body));
      for (const e of endpoints) {
        const allowed = c.mode === "dashboard" ? mayDashboard(c, e) : mayKey(c, e);
        if (!allowed) expect(seen.has(e.id), `${c.name} sees ${e.merchant} ${e.mode}`).toBe(false);
        const deliveries = await call(api.baseUrl, "GET", `${prefix}/${e.id}/deliveries`, {
          headers: c.headers,
        });
        expect(deliveries.status, `${c.name} deliveries of ${e.merchant} ${e.mode}`).toBe(
          allowed ? 200 : 404,
        );
        if (allowed) continue;
        const redeliver = await call(api.baseUrl, "POST", `${prefix}/${e.id}/redeliver`, {
          headers: c.headers,
          body: { event_id: "evt_x" },
        });
        expect([400, 404], `${c.name} redeliver on ${e.merchant} ${e.mode}`).toContain(redeliver.status);
        const del = await call(api.baseUrl, "DELETE", `${prefix}/${e.id}`, { headers: c.headers });
        expect(del.status, `${c.name} delete ${e.merchant} ${e.mode}`).toBe(404);
      }
    }
    // Nothing was deleted by anyone else: every owner still lists every one of its endpoints.
    for (const c of callers.filter((c) => c.mode !== "dashboard")) {
      const list = await call(api.baseUrl, "GET", "/webhooks", { headers: c.headers });
      const own = endpoints.filter((e) => mayKey(c, e)).map((e) => e.id);
      expect(idsIn(list.body).sort()).toEqual(own.sort());
    }
  });

  it("deliveries of another merchant's payment are not listed", async () => {
    for (const c of callers.filter((c) => c.mode === "dashboard")) {
      for (const p of payments.filter((p) => !mayDashboard(c, p))) {
        const res = await call(api.baseUrl, "GET", `/dashboard/api/webhook-deliveries?payment_id=${p.id}`, {
          headers: c.headers,
        });
        expect([200, 404]).toContain(res.status);
        if (res.status === 200) expect(idsIn(res.body)).toEqual([]);
      }
    }
  });

  it("API keypairs: another merchant's keypair cannot be listed, deactivated or activated", async () => {
    const [a, b] = callers.filter((c) => c.mode === "dashboard") as [Caller, Caller];
    const listA = await call(api.baseUrl, "GET", "/api-keys", { headers: a.headers });
    expect(idsIn(listA.body)).toContain(A.keypairId);
    expect(idsIn(listA.body)).not.toContain(B.keypairId);
    for (const action of ["deactivate", "activate"]) {
      const res = await call(api.baseUrl, "POST", `/api-keys/${B.keypairId}/${action}`, {
        headers: a.headers,
      });
      expect(res.status, action).toBe(404);
    }
    // B's key still works: A's attempts changed nothing.
    expect(
      (await call(api.baseUrl, "GET", "/payments", { headers: { "x-api-key": B.testKey } })).status,
    ).toBe(200);
    // An API key is not a dashboard credential, and a JWT is not an API key.
    expect(
      (await call(api.baseUrl, "GET", "/api-keys", { headers: { "x-api-key": A.testKey } })).status,
    ).toBe(401);
    expect((await call(api.baseUrl, "GET", "/payments", { headers: b.headers })).status).toBe(401);
  });

  it("payout wallets and payouts: only the caller's own, and keys cannot reach them", async () => {
    const [a] = callers.filter((c) => c.mode === "dashboard") as [Caller];
    await api.db.sql`insert into payout_wallets (merchant_id, chain, address)
      values (${B.merchantId}, 'solana', 'So11111111111111111111111111111111111111112')`;
    const wallets = await call(api.baseUrl, "GET", "/payout-wallets", { headers: a.headers });
    expect(wallets.status).toBe(200);
    expect(JSON.stringify(wallets.body)).not.toContain("So11111111111111111111111111111111111111112");
    const own = await call(api.baseUrl, "GET", "/payout-wallets", { headers: callers[5]!.headers });
    expect(JSON.stringify(own.body)).toContain("So11111111111111111111111111111111111111112");
    for (const path of ["/payout-wallets", "/payouts", "/payouts/context", "/payouts/schedule"]) {
      const byKey = await call(api.baseUrl, "GET", path, { headers: { "x-api-key": A.liveKey } });
      expect(byKey.status, path).toBe(401);
    }
    const payouts = await call(api.baseUrl, "GET", "/payouts", { headers: a.headers });
    expect(payouts.status).toBe(200);
    const other = await call(api.baseUrl, "GET", "/payouts/po_doesnotexist", { headers: a.headers });
    expect(other.status).toBe(404);
  });
});
