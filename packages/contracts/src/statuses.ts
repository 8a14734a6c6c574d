// Every status a merchant can read, one closed list each. The domain, the database's check
// constraints, the SDK and the dashboard are checked against these (contracts-drift.test.ts).

/** docs/payment-lifecycle.md draws how a payment moves between them. */
export const PAYMENT_STATUSES = [
  "pending",
  "confirming",
  "confirmed",
  "completed",
  "underpaid",
  "refunded",
  "expired",
  "failed",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** pending → processing → completed | failed (docs/payouts.md). */
export const PAYOUT_STATUSES = ["pending", "processing", "completed", "failed"] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const PAYOUT_KINDS = ["manual", "scheduled"] as const;
export type PayoutKind = (typeof PAYOUT_KINDS)[number];

/** A webhook delivery: retried while pending, canceled when its endpoint is deleted (docs/webhooks.md). */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A refund is pending until its transaction is sent (a simulated one counts as sent at once). */
export const REFUND_STATUSES = ["pending", "sent"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * underpayment: the payment expired short, every counted transfer goes back. overpayment: the
 * surplus of the transfer that covered the amount due. late: a transfer after the payment closed.
 */
export const REFUND_REASONS = ["underpayment", "overpayment", "late"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/** What a test payment can be made to do from the checkout page (docs/test-mode.md). */
export const SIMULATED_OUTCOMES = ["paid", "underpaid", "overpaid", "expired"] as const;
export type SimulatedOutcome = (typeof SIMULATED_OUTCOMES)[number];
