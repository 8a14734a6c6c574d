export { DeliveryWorker, type DeliveryWorkerOptions } from "./delivery-worker.js";
export { createWebhookHttpClient, type PostResult, type WebhookHttpClient } from "./http-post.js";
export { createEventIngest } from "./ingest.js";
export { createNotifier, type Notifier, type NotifierOptions, startNotifier } from "./notifier.js";
export { pruneDeliveryLog } from "./retention.js";
export {
  DEFAULT_RETRY_SCHEDULE_MS,
  DEFAULT_RETRY_WINDOW_MS,
  nextAttemptAt,
  retryDelayMs,
} from "./retry-schedule.js";
