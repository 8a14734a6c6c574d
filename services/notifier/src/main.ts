import { connectBus } from "@gateway/bus";
import { loadConfigOrExit, notifierConfigSchema } from "@gateway/config";
import { createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry } from "@gateway/metrics";
import { onShutdown, startHealthServer } from "@gateway/service-runtime";
import { notifierMetrics } from "./metrics.js";
import { startNotifier } from "./notifier.js";

const config = loadConfigOrExit("notifier", notifierConfigSchema);
const log = createLogger({ name: "notifier", level: config.LOG_LEVEL });
const sql = createSql({ url: config.DATABASE_URL, max: 20, applicationName: "notifier" });
const bus = await connectBus({
  url: config.NATS_URL,
  prefix: config.BUS_PREFIX,
  name: "notifier",
  log,
  streamReplicas: config.BUS_STREAM_REPLICAS,
});
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
const health = await startHealthServer({
  port: config.HEALTH_PORT,
  log,
  metrics,
  checks: {
    database: () => sql`select 1`,
    nats: () => (bus.nc.isClosed() ? Promise.reject(new Error("closed")) : bus.nc.flush()),
    delivery: async () => notifier.checkHealth(),
  },
});

onShutdown(log, [
  () => health.close(),
  () => notifier.stop(),
  () => bus.close(),
  () => sql.end({ timeout: 5 }),
]);
