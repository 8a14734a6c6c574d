// Live prices at the API: USD payments paid in SOL or SUI at a quoted rate, SOL/SUI payments
// valued at the live price, and 503 price_unavailable when no price can be trusted. Prices come
// from the local price server (test/price-server) over HTTP, in the feeds' real formats.

import { startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let merchant: TestMerchant;
let stopSettlement: () => Promise<void>;

beforeAll(async () => {
  api = await startTestApi({ QUOTE_TTL_SECONDS: "2" });
  merchant = await createTestMerchant(api.db.sql, "Quote Shop");
  const settlement = await startTestSettlement(api);
  stopSettlement = () => settlement.stop();
});
afterAll(async () => {
  await stopSettlement?.();
  await api?.close();
});
beforeEach(async () => {
  api.priceServer.reset();
  await api.deps.prices?.refresh();
});

async function createPayment(body: Record<string, unknown>, key = merchant.liveKey) {
  return call(api.baseUrl, "POST", "/payments", { body, headers: { "x-api-key": key } });
}
const generate = (id: string, chain: string, coin: string) =>
  call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, { body: { chain, coin } });
const stateOf = async (id: string) =>
  (await api.db.sql<{ state: any }[]>`select state from payments where id = ${id}`)[0]!.state;

async function movePrice(coin: "SOL" | "SUI", usd: string) {
  api.priceServer.setPrice(coin, usd);
  await api.deps.prices?.refresh();
}

describe("quotes for a live USD payment", () => {
  it("locks SOL at the live rate: amount rounded up, quote on the wallet, null quote for USDC", async () => {
    await movePrice("SOL", "162.40");
    const payment = (await createPayment({ amount: 12.5, currency: "USD" })).body;
    const before = Date.now();
    const sol = await generate(payment.id, "solana", "SOL");
    expect(sol.status).toBe(200);
    // 12.50 / 162.40 = 0.0769704433… SOL, rounded up to the lamport.
    expect(sol.body).toMatchObject({
      chain: "solana",
      coin: "SOL",
      amount: "0.076970444",
      quote: { rate: "162.40" },
    });
    const ends = Date.parse(sol.body.quote.expires_at);
    expect(ends).toBeGreaterThanOrEqual(before + 2000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 2000);
    expect(sol.body.payment_uri).toContain("amount=0.076970444");

    const usdc = await generate(payment.id, "solana", "USDC");
    expect(usdc.body).toMatchObject({ coin: "USDC", amount: "12.50", quote: null });

    const sui = await generate(payment.id, "sui", "SUI");
    expect(sui.body).toMatchObject({ coin: "SUI", amount: "3.571428572", quote: { rate: "3.50" } });

    const resource = await call(api.baseUrl, "GET", `/payments/${payment.id}`, {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(resource.body).toMatchObject({ coin: "SUI", amount_due: "3.571428572", quote: { rate: "3.50" } });
  });

  it("returns the same quote while it runs, even if the price moves; a fresh one after it ended", async () => {
    const payment = (await createPayment({ amount: 15, currency: "USD" })).body;
    const first = await generate(payment.id, "solana", "SOL");
    expect(first.body).toMatchObject({ amount: "0.10", quote: { rate: "150.00" } });
    await movePrice("SOL", "125.00");
    const again = await generate(payment.id, "solana", "SOL");
    expect(again.body).toEqual(first.body);

    // The quote ends; settlement marks it ended, and the next call quotes afresh on the same address.
    await waitFor(async () => (await stateOf(payment.id)).wallet.quote?.ended === true, {
      what: "quote ended by settlement",
      timeoutMs: 10_000,
    });
    const fresh = await generate(payment.id, "solana", "SOL");
    expect(fresh.body).toMatchObject({
      address: first.body.address,
      amount: "0.12",
      quote: { rate: "125.00" },
    });
    expect(Date.parse(fresh.body.quote.expires_at)).toBeGreaterThan(Date.parse(first.body.quote.expires_at));
    const state = await stateOf(payment.id);
    expect(state.wallet).toMatchObject({
      amountDue: "120000000",
      quote: { rate: "125000000", ended: false },
    });
  });

  it("never lets a quote outlive the payment", async () => {
    const slow = await startTestApi(
      { QUOTE_TTL_SECONDS: "900" },
      { db: api.db, testBus: api.testBus, signer: api.signer },
    );
    try {
      const payment = (await createPayment({ amount: 5, currency: "USD", expires_in: 300 })).body;
      const viaSlow = await call(slow.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
        body: { chain: "solana", coin: "SOL" },
      });
      expect(viaSlow.status).toBe(200);
      expect(viaSlow.body.quote.expires_at).toBe(payment.expires_at);
    } finally {
      await slow.close();
    }
  });

  it("refuses a coin the chain does not carry, as before", async () => {
    const payment = (await createPayment({ amount: 5, currency: "USD" })).body;
    const res = await generate(payment.id, "sui", "SOL");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "coin_unsupported", param: "coin" });
  });
});

describe("SOL and SUI payments at the live price", () => {
  it("values the payment when created, and applies the 1,000,000 USD limit at the live price", async () => {
    await movePrice("SOL", "200.00");
    const ok = await createPayment({ amount: 2.5, currency: "SOL" });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      usd_rate_at_creation: "200.00",
      usd_value_at_creation: "500.00",
      fee: "0.025",
    });
    // 5,000.000000001 SOL at 200.00 is just above 1,000,000 USD.
    const big = await createPayment({ amount: "5000.000000001", currency: "SOL" });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatchObject({ code: "amount_too_large", param: "amount" });
    await movePrice("SOL", "199.99");
    expect((await createPayment({ amount: "5000.000000001", currency: "SOL" })).status).toBe(201);
  });

  it("keeps test mode on fixed prices whatever the feeds say", async () => {
    await movePrice("SUI", "7.00");
    const res = await createPayment({ amount: 2, currency: "SUI" }, merchant.testKey);
    expect(res.body).toMatchObject({ usd_rate_at_creation: "3.50", usd_value_at_creation: "7.00" });
  });
});

describe("with every price source stopped", () => {
  let outage: TestApi;
  beforeAll(async () => {
    outage = await startTestApi(
      { PRICE_MAX_AGE_SECONDS: "1" },
      { db: api.db, testBus: api.testBus, signer: api.signer },
    );
    for (const name of ["pyth", "coinbase", "kraken"] as const)
      outage.priceServer.setSource(name, { mode: "down" });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await outage.deps.prices?.refresh();
  });
  afterAll(async () => {
    await outage?.close();
  });
  const post = (body: Record<string, unknown>, key = merchant.liveKey) =>
    call(outage.baseUrl, "POST", "/payments", { body, headers: { "x-api-key": key } });

  it("answers live SOL and SUI payments with 503 price_unavailable in the documented shape", async () => {
    for (const currency of ["SOL", "SUI"]) {
      const res = await post({ amount: 1, currency });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        error: {
          type: "api_error",
          code: "price_unavailable",
          message: `No reliable live ${currency} price is available right now; retry shortly.`,
        },
      });
    }
  });

  it("still answers bad input with its 400 first", async () => {
    const res = await post({ amount: "1.0000000001", currency: "SOL" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("amount_too_precise");
  });

  it("refuses a quote with 503 but keeps USDC/USDT payments and test mode working", async () => {
    const usd = await post({ amount: 12.5, currency: "USD" });
    expect(usd.status).toBe(201);
    const quote = await call(outage.baseUrl, "POST", `/payments/checkout/${usd.body.id}/generate-wallet`, {
      body: { chain: "solana", coin: "SOL" },
    });
    expect(quote.status).toBe(503);
    expect(quote.body.error.code).toBe("price_unavailable");
    const usdt = await call(outage.baseUrl, "POST", `/payments/checkout/${usd.body.id}/generate-wallet`, {
      body: { chain: "sui", coin: "USDT" },
    });
    expect(usdt.status).toBe(200);
    expect(usdt.body).toMatchObject({ coin: "USDT", amount: "12.50", quote: null });
    expect((await post({ amount: 3, currency: "USDC" })).status).toBe(201);
    expect((await post({ amount: 3, currency: "SOL" }, merchant.testKey)).status).toBe(201);

    // The checkout shows the quoted coin without an estimate rather than failing.
    const view = await call(outage.baseUrl, "GET", `/payments/checkout/${usd.body.id}`);
    expect(view.status).toBe(200);
    expect(view.body.options).toContainEqual({ chain: "solana", coin: "SOL", amount: null, rate: null });
  });

  it("exposes each source's age, the availability and the failures as metrics", async () => {
    const res = await fetch(`${outage.baseUrl}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/gateway_price_available\{coin="SOL",service="api"\} 0/);
    expect(text).toMatch(/gateway_price_source_age_seconds\{source="pyth",coin="SOL",service="api"\} \d/);
    expect(text).toMatch(/gateway_price_source_failures\{source="kraken",service="api"\} [1-9]/);
    const healthy = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(healthy).toMatch(/gateway_price_available\{coin="SOL",service="api"\} 1/);
    expect(healthy).toMatch(/gateway_price_spread_bps\{coin="SOL",service="api"\} 0/);
  });
});
