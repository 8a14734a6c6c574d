// Every event type a merchant can subscribe to, one closed list. An event announces a status a
// resource moved to, so its name is derived from that status and cannot drift from it.
import type { PaymentStatus, PayoutStatus } from "./statuses.js";

/** A payment announces every status but the one it is created in. */
export type AnnouncedPaymentStatus = Exclude<PaymentStatus, "pending">;
/** A payout announces every status but the one it is created in. */
export type AnnouncedPayoutStatus = Exclude<PayoutStatus, "pending">;

export const PAYMENT_EVENT_TYPES = [
  "payment.confirming",
  "payment.confirmed",
  "payment.completed",
  "payment.underpaid",
  "payment.refunded",
  "payment.expired",
  "payment.failed",
] as const satisfies readonly `payment.${AnnouncedPaymentStatus}`[];
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

export const PAYOUT_EVENT_TYPES = [
  "payout.processing",
  "payout.completed",
  "payout.failed",
] as const satisfies readonly `payout.${AnnouncedPayoutStatus}`[];
export type PayoutEventType = (typeof PAYOUT_EVENT_TYPES)[number];

/** Events about an endpoint itself: `webhook.test` is sent on request, to that endpoint only. */
export const WEBHOOK_EVENT_TYPES = ["webhook.test"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...PAYOUT_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === "string" && (EVENT_TYPES as readonly string[]).includes(value);
}

/** The event a payment status is announced with. */
export function paymentEventType(status: AnnouncedPaymentStatus): PaymentEventType {
  return `payment.${status}`;
}

/** The event a payout status is announced with. */
export function payoutEventType(status: AnnouncedPayoutStatus): PayoutEventType {
  return `payout.${status}`;
}
