import type { WebhookDelivery, WebhookEndpoint } from "@gateway/contracts";
import type { AttemptRow, DeliveryRow, EndpointRow } from "./webhook-store.js";

/** The endpoint as merchants see it; the secret is never part of it (only POST /webhooks adds it). */
export function toEndpointResource(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    is_test: row.mode === "test",
    events: row.events ?? ["*"],
    description: row.description,
    created_at: row.created_at.toISOString(),
  };
}

export function toDeliveryResource(row: DeliveryRow, attempts: AttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    last_status_code: row.last_status_code,
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at.toISOString(),
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      response_excerpt: a.response_excerpt,
      error: a.error,
    })),
  };
}
