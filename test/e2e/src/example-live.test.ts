// The example shop in live mode on the local Solana network: the order's payment is paid from
// a customer's wallet with a real SPL transfer, the watcher and settlement take it to completed,
// and the notifier's signed webhook marks the order paid.

import type { AddressInfo } from "node:net";
import { createTestMerchant, startTestApi, type TestApi } from "@gateway/api/testing";
import { createShop } from "@gateway/example-merchant-server";
import { type Notifier, startNotifier } from "@gateway/notifier";
import { createGateway } from "@gateway/sdk";
import { waitFor } from "@gateway/testkit";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payToken, registered, type SolanaHarness, startSolanaHarness } from "./solana-harness.js";

let h: SolanaHarness;
let api: TestApi;
let notifier: Notifier;

beforeAll(async () => {
  h = await startSolanaHarness();
  api = await startTestApi({}, { db: h.db, testBus: h.testBus, signer: h.signer });
  notifier = await startNotifier({
    sql: h.db.sql,
    bus: h.bus,
    log: api.deps.log,
    webhookSecretKey: api.deps.config.WEBHOOK_SECRET_KEY,
    allowPrivateWebhooks: true,
    pollMs: 50,
  });
}, 120_000);
afterAll(async () => {
  await notifier?.stop();
  await api?.close();
  await h?.close();
});

describe("example shop, live mode", () => {
  it("is paid on chain and fulfilled by the verified payment.completed webhook", async () => {
    const merchant = await createTestMerchant(h.db.sql, "Live Shop");
    let secret = "";
    const { app, orders } = createShop({
      gatewayUrl: api.baseUrl,
      apiKey: merchant.liveKey,
      webhookSecret: () => secret,
      shopUrl: "https://shop.example",
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const gateway = createGateway({ apiKey: merchant.liveKey, baseUrl: api.baseUrl });
      secret = (await gateway.webhooks.create({ url: `${shopUrl}/webhooks/gateway`, is_test: false })).secret;
      const order = await fetch(`${shopUrl}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount: "25.00" }),
        redirect: "manual",
      });
      const { order_id: orderId, checkout_url: checkoutUrl } = (await order.json()) as {
        order_id: string;
        checkout_url: string;
      };
      const paymentId = new URL(checkoutUrl).searchParams.get("payment_id")!;

      // What the checkout page does when the customer picks USDC on Solana.
      const wallet = await gateway.checkout.generateWallet(paymentId, { chain: "solana", coin: "USDC" });
      expect(wallet.amount).toBe("25.00");
      await waitFor(() => registered(h, wallet.address), { what: "address registered with the provider" });
      const customer = Keypair.generate();
      h.net.fund(customer.publicKey.toBase58(), "SOL", "1");
      h.net.fund(customer.publicKey.toBase58(), "USDC", "30");
      await payToken(h, customer, wallet.address, "USDC", 25_000_000n);

      await waitFor(() => orders.get(orderId)?.status === "paid", {
        what: "order paid by webhook",
        timeoutMs: 60_000,
      });
      const payment = await gateway.payments.retrieve(paymentId);
      expect(payment).toMatchObject({
        status: "completed",
        is_test: false,
        amount_received: "25.00",
        fee: "0.25",
      });
      // The delivery log shows the signed webhook that fulfilled the order.
      const [endpoint] = (await gateway.webhooks.list()).data;
      const deliveries = (await gateway.webhooks.deliveries(endpoint!.id)).data;
      expect(deliveries.some((d) => d.event_type === "payment.completed" && d.status === "succeeded")).toBe(
        true,
      );
    } finally {
      server.close();
    }
  }, 120_000);
});
