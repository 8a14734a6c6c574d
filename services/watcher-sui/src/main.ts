import { startChainGuardOrExit, suiProbeFromConfig } from "@gateway/chain-preflight";
import { watcherSuiConfigSchema } from "@gateway/config";
import { createMetricsRegistry } from "@gateway/metrics";
import { openService } from "@gateway/service-runtime";
import { watcherAttestor } from "@gateway/signer-client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { watcherSuiMetrics } from "./metrics.js";
import { startSuiWatcher } from "./watcher.js";

const { config, log, sql, bus, serveHealth, stopOnSignal } = await openService(
  "watcher-sui",
  watcherSuiConfigSchema,
  {
    databaseConnections: 5,
  },
);
const client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL });
const metrics = createMetricsRegistry("watcher-sui");
// The endpoint must be the declared network before anything is credited, and stay so.
const preflight = await startChainGuardOrExit({
  service: "watcher-sui",
  probes: [suiProbeFromConfig(config, client)],
  intervalMs: config.CHAIN_PREFLIGHT_INTERVAL_MS,
  log,
  metrics,
});
const watcher = await startSuiWatcher({
  sql,
  bus,
  client,
  log,
  coinTypes: { SUI: "0x2::sui::SUI", USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
  replicaId: config.SUI_WATCHER_REPLICA_ID,
  lateGraceMs: config.SUI_WATCHER_LATE_GRACE_MS,
  ...watcherAttestor(config),
  crediting: () => preflight.crediting("sui"),
});
watcherSuiMetrics(metrics, watcher, client);
const health = await serveHealth({
  metrics,
  checks: { sui: () => client.ledgerService.getServiceInfo({}).response, preflight: () => preflight.ready() },
  routes: {
    "/status": (res) => {
      const s = watcher.status();
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ...s, checkpoint: s.checkpoint?.toString() ?? null }));
    },
  },
});

stopOnSignal([() => health.close(), async () => preflight.stop(), () => watcher.stop()]);
