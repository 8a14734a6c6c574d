/** Every event type a merchant can subscribe to (PRODUCT.md, "Events and webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  "payment.confirming",
  "payment.confirmed",
  "payment.completed",
  "payment.underpaid",
  "payment.refunded",
  "payment.expired",
  "payment.failed",
  "payout.processing",
  "payout.completed",
  "payout.failed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === "string" && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
