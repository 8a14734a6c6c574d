export { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from "./delivery-worker.js";
export { generateEndpointSecret, openSecret, parseSecretKey, sealSecret } from "./endpoint-secret.js";
export { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./event-types.js";
export { createWebhookHttpClient, type PostResult, type WebhookHttpClient } from "./http-post.js";
export { createEventIngest, type EventMessage, isEventMessage } from "./ingest.js";
export { createNotifier, type Notifier, type NotifierOptions, startNotifier } from "./notifier.js";
export { pruneDeliveryLog } from "./retention.js";
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  DEFAULT_RETRY_WINDOW_MS,
  nextAttemptAt,
  retryDelayMs,
} from "./retry-schedule.js";
export {
  isForbiddenAddress,
  parseWebhookUrl,
  type ResolvedTarget,
  resolveWebhookTarget,
  type UrlPolicyOptions,
} from "./url-policy.js";
