// One watcher service for every chain, one deployment per chain: WATCHER_CHAIN picks the chain's
// package (packages/chain-packages) and its watcher module, and the process runs as
// `watcher-<chain>`, the name its logs, metrics, database connections and replicas carry.
import { CHAIN_PACKAGES } from "@gateway/chain-packages";
import { startChainGuardOrExit } from "@gateway/chain-preflight";
import { loadConfigOrExit, watcherConfigSchema } from "@gateway/config";
import { createMetricsRegistry } from "@gateway/metrics";
import { openService } from "@gateway/service-runtime";
import type { ChainWatcherModule } from "@gateway/watcher-kit";

async function watch(module: ChainWatcherModule) {
  const name = `watcher-${module.chain}`;
  const { config, log, sql, bus, serveHealth, stopOnSignal } = await openService(name, module.configSchema, {
    databaseConnections: 5,
  });
  const client = module.connect(config);
  const metrics = createMetricsRegistry(name);
  // The endpoint must be the declared network before anything is credited, and stay so.
  const preflight = await startChainGuardOrExit({
    service: name,
    probes: [module.probe(config, client)],
    intervalMs: config.CHAIN_PREFLIGHT_INTERVAL_MS,
    log,
    metrics,
  });
  const watcher = await module.start(config, {
    client,
    sql,
    bus,
    log,
    metrics,
    crediting: () => preflight.crediting(module.chain),
  });
  const health = await serveHealth({
    metrics,
    checks: { ...module.checks(client), preflight: () => preflight.ready() },
    ...(module.routes ? { routes: module.routes(watcher) } : {}),
  });

  stopOnSignal([() => health.close(), async () => preflight.stop(), () => watcher.stop()]);
}

// Only the chain's watcher is loaded: no other chain's code, no settlement code.
await watch(await CHAIN_PACKAGES[loadConfigOrExit("watcher", watcherConfigSchema).WATCHER_CHAIN].watcher());
