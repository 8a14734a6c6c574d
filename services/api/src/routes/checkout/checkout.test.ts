import type { Settlement } from "@gateway/settlement";
import { waitFor } from "@gateway/testkit";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../testing/merchant.js";
import { call, startTestApi, type TestApi } from "../../testing/test-api.js";
import { startTestSettlement } from "../../testing/test-settlement.js";

let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql, "Corner Café");
  settlement = await startTestSettlement(api);
});
afterAll(async () => {
  await settlement.stop();
  await api.close();
});

async function createPayment(
  body: Record<string, unknown> = { amount: 12.5, currency: "USD" },
  key = merchant.testKey,
) {
  const res = await call(api.baseUrl, "POST", "/payments", { body, headers: { "x-api-key": key } });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe("checkout API", () => {
  it("shows the public view without merchant secrets", async () => {
    const payment = await createPayment({
      amount: 12.5,
      currency: "USD",
      description: "Two coffees",
      redirect_url: "https://cafe.example/ok",
    });
    const view = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      id: payment.id,
      merchant_name: "Corner Café",
      description: "Two coffees",
      amount: "12.50",
      currency: "USD",
      status: "pending",
      is_test: true,
      redirect_url: null,
      wallet: null,
    });
    expect(view.body.options).toEqual([
      { chain: "solana", coin: "USDC", amount: "12.50" },
      { chain: "solana", coin: "USDT", amount: "12.50" },
      { chain: "sui", coin: "USDC", amount: "12.50" },
      { chain: "sui", coin: "USDT", amount: "12.50" },
    ]);
    expect(JSON.stringify(view.body)).not.toContain(merchant.merchantId);
  });

  it("derives a deposit address from the signer, stable per choice and new per choice", async () => {
    const payment = await createPayment();
    const path = `/payments/checkout/${payment.id}/generate-wallet`;
    const solana = await call(api.baseUrl, "POST", path, { body: { chain: "solana", coin: "USDC" } });
    expect(solana.status).toBe(200);
    expect(solana.body).toMatchObject({ chain: "solana", coin: "USDC", amount: "12.50" });
    expect(PublicKey.isOnCurve(new PublicKey(solana.body.address).toBytes())).toBe(true);
    expect(solana.body.payment_uri).toBe(
      `solana:${solana.body.address}?amount=12.50&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&label=Corner%20Caf%C3%A9`,
    );
    const again = await call(api.baseUrl, "POST", path, { body: { chain: "solana", coin: "USDC" } });
    expect(again.body.address).toBe(solana.body.address);
    const sui = await call(api.baseUrl, "POST", path, { body: { chain: "sui", coin: "USDT" } });
    expect(sui.body.address).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sui.body.payment_uri).toBeNull();
    const view = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
    expect(view.body.wallet).toMatchObject({ chain: "sui", coin: "USDT", address: sui.body.address });
    // The signer agrees: the address is the one at the wallet's recorded derivation index.
    const [row] = await api.db.sql<{ derivation_index: bigint }[]>`
      select derivation_index from deposit_wallets where address = ${sui.body.address}`;
    expect(
      await api.signer.client.deriveDepositAddress({
        chain: "sui",
        mode: "test",
        index: Number(row!.derivation_index),
      }),
    ).toBe(sui.body.address);
  });

  it("never hands out an address twice, even under concurrent requests", async () => {
    const payments = await Promise.all(Array.from({ length: 10 }, () => createPayment()));
    const wallets = await Promise.all(
      payments.map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
          body: { chain: "solana", coin: "USDT" },
        }),
      ),
    );
    const addresses = new Set(wallets.map((w) => w.body.address));
    expect(addresses.size).toBe(10);
  });

  it("keeps test and live addresses on separate branches", async () => {
    const test = await createPayment({ amount: 1, currency: "SOL" });
    const live = await createPayment({ amount: 1, currency: "SOL" }, merchant.liveKey);
    const [a, b] = await Promise.all(
      [test, live].map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
          body: { chain: "solana", coin: "SOL" },
        }),
      ),
    );
    expect(a!.body.address).not.toBe(b!.body.address);
    expect(a!.body.payment_uri).toBe(`solana:${a!.body.address}?amount=1.00&label=Corner%20Caf%C3%A9`);
  });

  it("refuses impossible choices with 400s naming the field", async () => {
    const payment = await createPayment({ amount: 1, currency: "SOL" });
    const path = `/payments/checkout/${payment.id}/generate-wallet`;
    const cases: [unknown, string, string][] = [
      [{ chain: "ethereum", coin: "USDC" }, "chain_unsupported", "chain"],
      [{ chain: "solana", coin: "DOGE" }, "coin_unsupported", "coin"],
      [{ chain: "sui", coin: "SOL" }, "coin_unsupported", "coin"],
      [{ chain: "solana", coin: "USDC" }, "coin_unsupported", "coin"],
      [{ coin: "SOL" }, "parameter_missing", "chain"],
      [{ chain: "solana", coin: "SOL", extra: 1 }, "parameter_unknown", "extra"],
    ];
    for (const [body, code, param] of cases) {
      const res = await call(api.baseUrl, "POST", path, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    const missing = await call(
      api.baseUrl,
      "POST",
      "/payments/checkout/00000000-0000-4000-8000-000000000000/generate-wallet",
      {
        body: { chain: "solana", coin: "SOL" },
      },
    );
    expect(missing.status).toBe(404);
  });

  it("simulates a payment to completion, then shows the redirect", async () => {
    const payment = await createPayment({
      amount: 12.5,
      currency: "USD",
      redirect_url: "https://cafe.example/ok",
    });
    await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    const sim = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(sim.status).toBe(202);
    const view = await waitFor(
      async () => {
        const v = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
        return v.body.status === "completed" && v.body;
      },
      { what: "completed" },
    );
    expect(view.redirect_url).toBe("https://cafe.example/ok");
    const merchantView = await call(api.baseUrl, "GET", `/payments/${payment.id}`, {
      headers: { "x-api-key": merchant.testKey },
    });
    expect(merchantView.body).toMatchObject({ status: "completed", fee: "0.13", amount_received: "12.50" });
    const again = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(again.status).toBe(409);
    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "sui", coin: "USDC" },
    });
    expect(wallet.status).toBe(409);
  });

  it("refuses to simulate live payments (404) and bad outcomes (400)", async () => {
    const live = await createPayment({ amount: 5, currency: "USD" }, merchant.liveKey);
    const res = await call(api.baseUrl, "POST", `/payments/checkout/${live.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(res.status).toBe(404);
    const test = await createPayment();
    const bad = await call(api.baseUrl, "POST", `/payments/checkout/${test.id}/simulate`, {
      body: { outcome: "stolen" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "outcome" });
  });
});
