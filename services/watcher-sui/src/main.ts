import { connectBus } from "@gateway/bus";
import { loadConfigOrExit, watcherSuiConfigSchema } from "@gateway/config";
import { createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry } from "@gateway/metrics";
import { onShutdown, startHealthServer } from "@gateway/service-runtime";
import { approverKeyFromSeed } from "@gateway/signer-client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { watcherSuiMetrics } from "./metrics.js";
import { startSuiWatcher } from "./watcher.js";

const config = loadConfigOrExit("watcher-sui", watcherSuiConfigSchema);
const log = createLogger({ name: "watcher-sui", level: config.LOG_LEVEL });
const sql = createSql({ url: config.DATABASE_URL, max: 5, applicationName: "watcher-sui" });
const bus = await connectBus({ url: config.NATS_URL, prefix: config.BUS_PREFIX, name: "watcher-sui", log });
const client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL });
const watcher = await startSuiWatcher({
  sql,
  bus,
  client,
  log,
  coinTypes: { SUI: "0x2::sui::SUI", USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
  replicaId: config.SUI_WATCHER_REPLICA_ID,
  lateGraceMs: config.SUI_WATCHER_LATE_GRACE_MS,
  ...(config.WATCHER_ATTESTATION_SEED
    ? {
        attestor: {
          keyId: config.WATCHER_ATTESTATION_KEY_ID,
          key: approverKeyFromSeed(Buffer.from(config.WATCHER_ATTESTATION_SEED, "hex")),
        },
      }
    : {}),
});
const metrics = createMetricsRegistry("watcher-sui");
watcherSuiMetrics(metrics, watcher, client);
const health = await startHealthServer({
  port: config.HEALTH_PORT,
  log,
  metrics,
  checks: {
    database: () => sql`select 1`,
    nats: () => bus.nc.flush(),
    sui: () => client.ledgerService.getServiceInfo({}).response,
  },
  routes: {
    "/status": (res) => {
      const s = watcher.status();
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ...s, checkpoint: s.checkpoint?.toString() ?? null }));
    },
  },
});

onShutdown(log, [
  () => health.close(),
  () => watcher.stop(),
  () => bus.close(),
  () => sql.end({ timeout: 5 }),
]);
