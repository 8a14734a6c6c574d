import { settlementConfigSchema } from "@gateway/config";
import { createMetricsRegistry, databaseMetrics } from "@gateway/metrics";
import { priceMetrics, priceServiceFromConfig, usdRateForMode } from "@gateway/prices";
import { onShutdown, openService, startHealthServer } from "@gateway/service-runtime";
import { liveChainsFromConfig } from "./chains/from-config.js";
import { startSettlement } from "./settlement.js";

const { config, log, sql, bus, infrastructureChecks } = await openService(
  "settlement",
  settlementConfigSchema,
  {
    databaseConnections: 10,
  },
);
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
  checks: infrastructureChecks,
});

onShutdown(log, [
  () => health.close(),
  () => settlement.stop(),
  () => prices.stop(),
  () => bus.close(),
  async () => live.signer?.close(),
  () => sql.end({ timeout: 5 }),
]);
