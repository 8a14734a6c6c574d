import os from "node:os";
import { connectBus } from "@gateway/bus";
import { loadConfigOrExit, watcherSolanaConfigSchema } from "@gateway/config";
import { createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { createMetricsRegistry } from "@gateway/metrics";
import { onShutdown, startHealthServer } from "@gateway/service-runtime";
import { approverKeyFromSeed } from "@gateway/signer-client";
import { Connection } from "@solana/web3.js";
import { createHeliusRegistry } from "./address-registry.js";
import { startSolanaWatcher } from "./watcher.js";

const config = loadConfigOrExit("watcher-solana", watcherSolanaConfigSchema);
const log = createLogger({ name: "watcher-solana", level: config.LOG_LEVEL });
const sql = createSql({ url: config.DATABASE_URL, max: 5, applicationName: "watcher-solana" });
const bus = await connectBus({
  url: config.NATS_URL,
  prefix: config.BUS_PREFIX,
  name: "watcher-solana",
  log,
});
const connection = new Connection(config.SOLANA_RPC_URL, {
  commitment: "confirmed",
  ...(config.SOLANA_WS_URL ? { wsEndpoint: config.SOLANA_WS_URL } : {}),
});
const metrics = createMetricsRegistry("watcher-solana");
const watcher = await startSolanaWatcher({
  metrics,
  sql,
  bus,
  log,
  connection,
  mints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
  replicaId: config.REPLICA_ID ?? `${os.hostname()}-${process.pid}`,
  ingress: { port: config.PORT, authHeader: config.WEBHOOK_AUTH_HEADER },
  ...(config.PROVIDER_API_URL
    ? {
        registry: createHeliusRegistry({
          baseUrl: config.PROVIDER_API_URL,
          ...(config.PROVIDER_API_KEY ? { apiKey: config.PROVIDER_API_KEY } : {}),
          webhookUrl: config.WATCHER_PUBLIC_URL,
          authHeader: config.WEBHOOK_AUTH_HEADER,
        }),
      }
    : {}),
  reconcileCallsPerSecond: config.RECONCILE_CALLS_PER_SECOND,
  pollMs: config.SIGNATURE_POLL_MS,
  openRefreshMs: config.OPEN_ADDRESS_REFRESH_MS,
  lateWindowMs: config.LATE_WINDOW_MS,
  heartbeatMs: config.HEARTBEAT_MS,
  ...(config.WATCHER_ATTESTATION_SEED
    ? {
        attestor: {
          keyId: config.WATCHER_ATTESTATION_KEY_ID,
          key: approverKeyFromSeed(Buffer.from(config.WATCHER_ATTESTATION_SEED, "hex")),
        },
      }
    : {}),
});
const health = await startHealthServer({
  port: config.HEALTH_PORT,
  log,
  metrics,
  checks: {
    database: () => sql`select 1`,
    nats: () => bus.nc.flush(),
    solana: () => connection.getSlot("confirmed"),
  },
});

onShutdown(log, [
  () => health.close(),
  () => watcher.stop(),
  () => bus.close(),
  () => sql.end({ timeout: 5 }),
]);
