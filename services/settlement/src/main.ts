import { consumerBacklogs } from "@gateway/bus";
import { startChainGuardOrExit } from "@gateway/chain-preflight";
import { settlementConfigSchema } from "@gateway/config";
import { consumerBacklogMetrics, createMetricsRegistry, databaseMetrics } from "@gateway/metrics";
import { priceMetrics, priceServiceFromConfig, usdRateForMode } from "@gateway/prices";
import { openService } from "@gateway/service-runtime";
import { liveChainsFromConfig, settlementProbes } from "./chains/from-config.js";
import { startSettlement } from "./settlement.js";

const { config, log, sql, bus, serveHealth, stopOnSignal } = await openService(
  "settlement",
  settlementConfigSchema,
  {
    databaseConnections: 10,
  },
);
const metrics = createMetricsRegistry("settlement");
// Every chain settlement sends on must be its declared network, now and later (no chain: test mode).
const preflight = await startChainGuardOrExit({
  service: "settlement",
  probes: await settlementProbes(config),
  intervalMs: config.CHAIN_PREFLIGHT_INTERVAL_MS,
  log,
  metrics,
});
const live = await liveChainsFromConfig(config, sql, log, (chain) => preflight.crediting(chain), metrics);
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
databaseMetrics(metrics, sql);
priceMetrics(metrics, prices, config.PRICE_MAX_AGE_SECONDS);
// Its durables, one per chain for chain work: a stalled chain shows as its consumer's backlog.
consumerBacklogMetrics(metrics, () => consumerBacklogs(bus.jsm, [bus.topology.streams.commands]));
const health = await serveHealth({ metrics, checks: { preflight: () => preflight.ready() } });

stopOnSignal([
  () => health.close(),
  async () => preflight.stop(),
  () => settlement.stop(),
  () => prices.stop(),
  async () => live.signer?.close(),
]);
