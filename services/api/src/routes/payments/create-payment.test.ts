import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let merchant: TestMerchant;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
});
afterAll(() => api.close());

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function post(body: unknown, key = merchant.testKey, headers: Record<string, string> = {}) {
  return call(api.baseUrl, "POST", "/payments", { body, headers: { "x-api-key": key, ...headers } });
}

describe("POST /payments (happy)", () => {
  it("creates a pending test payment with the seed's exact fields", async () => {
    const before = Date.now();
    const res = await post({
      amount: 12.5,
      currency: "usd",
      redirect_url: "https://shop.example/thanks",
      description: "Order 42",
    });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p.id).toMatch(UUID);
    expect(p).toMatchObject({
      amount: "12.50",
      currency: "USD",
      status: "pending",
      is_test: true,
      redirect_url: "https://shop.example/thanks",
      description: "Order 42",
      checkout_url: `${api.baseUrl}/gateway?payment_id=${p.id}`,
      fee: "0.13",
    });
    expect(p.expires_at).toMatch(ISO_MS);
    expect(p.created_at).toMatch(ISO_MS);
    const validity = Date.parse(p.expires_at) - Date.parse(p.created_at);
    expect(validity).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
    expect(validity).toBeLessThanOrEqual(30 * 60_000 + 1000);
    expect(Date.parse(p.created_at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("gives each of many concurrent requests its own payment, as asked", async () => {
    const asks = Array.from({ length: 40 }, (_, i) => ({
      amount: `${i + 1}.25`,
      currency: i % 2 ? "USD" : "SOL",
      description: `concurrent ${i}`,
      ...(i % 3 ? { redirect_url: `https://shop.example/${i}` } : {}),
    }));
    const created = await Promise.all(
      asks.map((ask, i) => post(ask, i % 4 ? merchant.testKey : merchant.liveKey)),
    );
    expect(new Set(created.map((res) => res.body.id)).size).toBe(40);
    for (const [i, res] of created.entries()) {
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        amount: asks[i]!.amount,
        currency: asks[i]!.currency,
        description: asks[i]!.description,
        redirect_url: asks[i]!.redirect_url ?? null,
        is_test: i % 4 !== 0,
      });
      const key = i % 4 ? merchant.testKey : merchant.liveKey;
      const read = await call(api.baseUrl, "GET", `/payments/${res.body.id}`, {
        headers: { "x-api-key": key },
      });
      expect(read.body).toEqual(res.body);
    }
  });

  it("marks live-key payments is_test false and honours expires_in", async () => {
    const res = await post({ amount: 1, currency: "SOL", expires_in: 300 }, merchant.liveKey);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ is_test: false, amount: "1.00", currency: "SOL", redirect_url: null });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBeLessThanOrEqual(
      300_000 + 1000,
    );
  });

  it("accepts decimal strings exactly and keeps every currency's precision", async () => {
    const res = await post({ amount: "10.123456", currency: "USDC" });
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe("10.123456");
  });

  it("stores money exactly as bigint base units", async () => {
    const res = await post({ amount: 999999.99, currency: "USD" });
    const [row] = await api.db.sql<
      { amount: bigint; fee: bigint }[]
    >`select amount, fee from payments where id = ${res.body.id}`;
    expect(row).toEqual({ amount: 99999999n, fee: 1000000n });
  });

  it("reads back the payment, and lists newest first with a cursor", async () => {
    const created = [];
    for (let i = 0; i < 3; i++)
      created.push((await post({ amount: 10 + i, currency: "USDT" }, merchant.liveKey)).body);
    const one = await call(api.baseUrl, "GET", `/payments/${created[0].id}`, {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created[0]);
    const page1 = await call(api.baseUrl, "GET", "/payments?limit=2", {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(page1.body.data.map((p: { id: string }) => p.id)).toEqual([created[2].id, created[1].id]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await call(api.baseUrl, "GET", `/payments?limit=2&starting_after=${created[1].id}`, {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(page2.body.data[0].id).toBe(created[0].id);
    const pending = await call(api.baseUrl, "GET", "/payments?status=completed", {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(pending.body.data).toEqual([]);
  });

  it("replays the first response for the same Idempotency-Key and body", async () => {
    const headers = { "Idempotency-Key": "order-7" };
    const first = await post({ amount: 5, currency: "USD" }, merchant.testKey, headers);
    const again = await post({ amount: 5, currency: "USD" }, merchant.testKey, headers);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const other = await post({ amount: 6, currency: "USD" }, merchant.testKey, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("idempotency_key_reused");
    // The same key in the other mode is another scope.
    const live = await post({ amount: 6, currency: "USD" }, merchant.liveKey, headers);
    expect(live.status).toBe(201);
  });
});

describe("POST /payments (errors)", () => {
  const cases: [string, unknown, number, string, string | undefined][] = [
    ["missing amount", { currency: "USD" }, 400, "parameter_missing", "amount"],
    ["missing currency", { amount: 5 }, 400, "parameter_missing", "currency"],
    ["unsupported currency", { amount: 5, currency: "BTC" }, 400, "currency_unsupported", "currency"],
    ["currency not a string", { amount: 5, currency: 7 }, 400, "currency_unsupported", "currency"],
    ["negative amount", { amount: -5, currency: "USD" }, 400, "amount_not_positive", "amount"],
    ["zero amount", { amount: 0, currency: "USD" }, 400, "amount_not_positive", "amount"],
    ["too precise", { amount: 1.005, currency: "USD" }, 400, "amount_too_precise", "amount"],
    ["exponent string", { amount: "1e3", currency: "USD" }, 400, "amount_invalid", "amount"],
    ["boolean amount", { amount: true, currency: "USD" }, 400, "amount_invalid", "amount"],
    ["below stablecoin minimum", { amount: 0.49, currency: "USDC" }, 400, "amount_too_small", "amount"],
    ["above the ceiling", { amount: 1000000.01, currency: "USD" }, 400, "amount_too_large", "amount"],
    [
      "bad redirect",
      { amount: 5, currency: "USD", redirect_url: "javascript:alert(1)" },
      400,
      "url_invalid",
      "redirect_url",
    ],
    [
      "expires_in too short",
      { amount: 5, currency: "USD", expires_in: 10 },
      400,
      "parameter_invalid",
      "expires_in",
    ],
    ["unknown field", { amount: 5, currency: "USD", chain: "solana" }, 400, "parameter_unknown", "chain"],
    ["array body", [1, 2], 400, "body_invalid", undefined],
  ];
  for (const [name, body, status, code, param] of cases) {
    it(`refuses ${name}`, async () => {
      const res = await post(body);
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
      expect(res.body.error.type).toBe("invalid_request_error");
      if (param) expect(res.body.error.param).toBe(param);
    });
  }

  it("refuses malformed JSON and non-JSON bodies", async () => {
    const broken = await call(api.baseUrl, "POST", "/payments", {
      rawBody: "{amount:",
      headers: { "x-api-key": merchant.testKey, "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe("body_invalid");
    const form = await call(api.baseUrl, "POST", "/payments", {
      rawBody: "amount=5",
      headers: { "x-api-key": merchant.testKey, "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
  });

  it("401 without a key, with an unknown key, or with a deactivated keypair", async () => {
    const none = await call(api.baseUrl, "POST", "/payments", { body: { amount: 5, currency: "USD" } });
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ type: "authentication_error", code: "api_key_missing" });
    const bogus = await post({ amount: 5, currency: "USD" }, `gw_test_${"x".repeat(40)}`);
    expect(bogus.body.error.code).toBe("api_key_invalid");
    const other = await createTestMerchant(api.db.sql, "Other");
    await api.db.sql`update api_keypairs set active = false where id = ${other.keypairId}`;
    const inactive = await post({ amount: 5, currency: "USD" }, other.testKey);
    expect(inactive.status).toBe(401);
  });

  it("hides other merchants' and the other mode's payments (404)", async () => {
    const mine = (await post({ amount: 5, currency: "USD" })).body;
    const other = await createTestMerchant(api.db.sql, "Other");
    for (const key of [other.testKey, merchant.liveKey]) {
      const res = await call(api.baseUrl, "GET", `/payments/${mine.id}`, { headers: { "x-api-key": key } });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("resource_not_found");
    }
    const notUuid = await call(api.baseUrl, "GET", "/payments/not-a-uuid", {
      headers: { "x-api-key": merchant.testKey },
    });
    expect(notUuid.status).toBe(404);
  });
});
