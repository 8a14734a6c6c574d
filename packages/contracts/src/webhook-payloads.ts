// The bodies POSTed to merchants' webhook endpoints (docs/webhooks.md), stored as they are sent
// in the `events` table the dashboard's timeline reads.
import type { EventType, PaymentEventType, PayoutEventType, WebhookEventType } from "./event-types.js";
import type { Payment } from "./payment-resource.js";
import type { Payout } from "./resources.js";

interface EventOf<Type extends EventType, Data> {
  /** `evt_…`: the same id on every delivery of the event, so receivers can drop repeats. */
  id: string;
  type: Type;
  created_at: string;
  is_test: boolean;
  data: Data;
}

export type PaymentEvent = EventOf<PaymentEventType, { payment: Payment }>;
export type PayoutEvent = EventOf<PayoutEventType, { payout: Payout }>;
/** Sent by `POST /webhooks/:id/test` to that endpoint only, to check its receiver end to end. */
export type WebhookTestEvent = EventOf<WebhookEventType, { webhook_endpoint: { id: string; url: string } }>;
export type GatewayEvent = PaymentEvent | PayoutEvent | WebhookTestEvent;
