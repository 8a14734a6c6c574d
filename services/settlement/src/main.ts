import { connectBus } from "@gateway/bus";
import { loadConfigOrExit, settlementConfigSchema } from "@gateway/config";
import { createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry, databaseMetrics } from "@gateway/metrics";
import { priceMetrics, priceServiceFromConfig, usdRateForMode } from "@gateway/prices";
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
// Read in the background; a feed outage only means SOL/SUI fees use the creation price.
const prices = priceServiceFromConfig(config, log);
await prices.start();
const settlement = await startSettlement({
  sql,
  bus,
  log,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  expiryPollMs: config.EXPIRY_POLL_MS,
  chains: live.chains,
  payouts: live.payouts,
  usdRate: (mode, coin) => usdRateForMode(prices, mode, coin),
});
const metrics = createMetricsRegistry("settlement");
databaseMetrics(metrics, sql);
priceMetrics(metrics, prices, config.PRICE_MAX_AGE_SECONDS);
const health = await startHealthServer({
  port: config.HEALTH_PORT,
  log,
  metrics,
  checks: { database: () => sql`select 1`, nats: () => bus.nc.flush() },
});

onShutdown(log, [
  () => health.close(),
  () => settlement.stop(),
  () => prices.stop(),
  () => bus.close(),
  async () => live.signer?.close(),
  () => sql.end({ timeout: 5 }),
]);
