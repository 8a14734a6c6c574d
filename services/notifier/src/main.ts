import { consumerBacklogs } from "@gateway/bus";
import { notifierConfigSchema } from "@gateway/config";
import { consumerBacklogMetrics, createMetricsRegistry } from "@gateway/metrics";
import { openService } from "@gateway/service-runtime";
import { notifierMetrics } from "./metrics.js";
import { startNotifier } from "./notifier.js";

const { config, log, sql, bus, serveHealth, stopOnSignal } = await openService(
  "notifier",
  notifierConfigSchema,
  {
    databaseConnections: 20,
  },
);
const notifier = await startNotifier({
  sql,
  bus,
  log,
  webhookSecretKey: config.WEBHOOK_SECRET_KEY,
  allowPrivateWebhooks: config.ALLOW_PRIVATE_WEBHOOKS,
  deliveryTimeoutMs: config.DELIVERY_TIMEOUT_MS,
  retryScheduleMs: config.NOTIFIER_RETRY_SCHEDULE_MS,
  concurrency: config.NOTIFIER_CONCURRENCY,
});
const metrics = createMetricsRegistry("notifier");
notifierMetrics(metrics, notifier, sql);
consumerBacklogMetrics(metrics, () => consumerBacklogs(bus.jsm, [bus.topology.streams.events]));
const health = await serveHealth({ metrics, checks: { delivery: async () => notifier.checkHealth() } });

stopOnSignal([() => health.close(), () => notifier.stop()]);
