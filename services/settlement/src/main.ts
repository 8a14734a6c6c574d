import { connectBus } from "@gateway/bus";
import { loadConfigOrExit, settlementConfigSchema } from "@gateway/config";
import { createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry, databaseMetrics } from "@gateway/metrics";
import { onShutdown, startHealthServer } from "@gateway/service-runtime";
import { liveChainsFromConfig } from "./chains/from-config.js";
import { startSettlement } from "./settlement.js";

const config = loadConfigOrExit("settlement", settlementConfigSchema);
const log = createLogger({ name: "settlement", level: config.LOG_LEVEL });
const sql = createSql({ url: config.DATABASE_URL, max: 10, applicationName: "settlement" });
const bus = await connectBus({
  url: config.NATS_URL,
  prefix: config.BUS_PREFIX,
  name: "settlement",
  log,
  streamReplicas: config.BUS_STREAM_REPLICAS,
});
const live = liveChainsFromConfig(config, sql, log);
const settlement = await startSettlement({
  sql,
  bus,
  log,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  expiryPollMs: config.EXPIRY_POLL_MS,
  chains: live.chains,
  payouts: live.payouts,
});
const metrics = createMetricsRegistry("settlement");
databaseMetrics(metrics, sql);
const health = await startHealthServer({
  port: config.HEALTH_PORT,
  log,
  metrics,
  checks: { database: () => sql`select 1`, nats: () => bus.nc.flush() },
});

onShutdown(log, [
  () => health.close(),
  () => settlement.stop(),
  () => bus.close(),
  async () => live.signer?.close(),
  () => sql.end({ timeout: 5 }),
]);
