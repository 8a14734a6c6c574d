// The whole integration a merchant writes: about sixty lines.
import { randomUUID } from "node:crypto";
import {
  createGateway,
  type Payment,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "@gateway/sdk";
import express, { type Express } from "express";

export interface Order {
  id: string;
  amount: string;
  paymentId: string;
  status: "awaiting_payment" | "paid" | "cancelled";
}

export interface ShopOptions {
  gatewayUrl: string;
  apiKey: string;
  /** The `whsec_…` secret POST /webhooks returned for this shop's endpoint. */
  webhookSecret: () => string;
  /** This shop's own public address, for the customer's way back. */
  shopUrl: string;
}

export function createShop(options: ShopOptions): { app: Express; orders: Map<string, Order> } {
  const gateway = createGateway({ apiKey: options.apiKey, baseUrl: options.gatewayUrl });
  // A real shop keeps these in its database; the handled-event set is what makes webhooks idempotent.
  const orders = new Map<string, Order>();
  const handledEvents = new Set<string>();
  const app = express();

  app.post("/orders", express.json(), async (req, res) => {
    const orderId = randomUUID();
    const amount = String(req.body?.amount ?? "10.00");
    // The order id as Idempotency-Key: a retried request never creates a second payment.
    const payment = await gateway.payments.create(
      {
        amount: Number(amount),
        currency: "USD",
        description: `Order ${orderId}`,
        redirect_url: `${options.shopUrl}/orders/${orderId}`,
      },
      { idempotencyKey: `order-${orderId}` },
    );
    orders.set(orderId, { id: orderId, amount, paymentId: payment.id, status: "awaiting_payment" });
    // Send the customer to the hosted checkout.
    res
      .status(303)
      .location(payment.checkout_url)
      .json({ order_id: orderId, checkout_url: payment.checkout_url });
  });

  app.get("/orders/:id", async (req, res) => {
    const order = orders.get(req.params.id);
    if (!order) return void res.status(404).json({ error: "no such order" });
    // The redirect alone proves nothing: confirm with the API before showing "paid".
    if (order.status === "awaiting_payment") {
      const payment = await gateway.payments.retrieve(order.paymentId);
      if (payment.status === "completed") order.status = "paid";
    }
    res.json(order);
  });

  // The raw body is what was signed: parse JSON only after verifying it.
  app.post("/webhooks/gateway", express.raw({ type: "application/json" }), (req, res) => {
    let event: WebhookEvent;
    try {
      event = verifyWebhook({
        payload: req.body as Buffer,
        header: req.header("x-gateway-signature") ?? "",
        secret: options.webhookSecret(),
      });
    } catch (err) {
      if (err instanceof WebhookVerificationError) return void res.status(400).json({ error: err.code });
      throw err;
    }
    if (handledEvents.has(event.id)) return void res.status(200).json({ duplicate: true });
    const payment = (event.data as { payment?: Payment }).payment;
    const order = [...orders.values()].find((o) => o.paymentId === payment?.id);
    if (order && event.type === "payment.completed") order.status = "paid";
    if (order && (event.type === "payment.expired" || event.type === "payment.refunded"))
      order.status = "cancelled";
    handledEvents.add(event.id);
    res.status(200).json({ received: true });
  });

  return { app, orders };
}
