import os from "node:os";
import { solanaProbeFromConfig, startChainGuardOrExit } from "@gateway/chain-preflight";
import { watcherSolanaConfigSchema } from "@gateway/config";
import { createMetricsRegistry } from "@gateway/metrics";
import { openService } from "@gateway/service-runtime";
import { watcherAttestor } from "@gateway/signer-client";
import { Connection } from "@solana/web3.js";
import { createHeliusRegistry } from "./address-registry.js";
import { startSolanaWatcher } from "./watcher.js";

const { config, log, sql, bus, serveHealth, stopOnSignal } = await openService(
  "watcher-solana",
  watcherSolanaConfigSchema,
  {
    databaseConnections: 5,
  },
);
const connection = new Connection(config.SOLANA_RPC_URL, {
  commitment: "confirmed",
  ...(config.SOLANA_WS_URL ? { wsEndpoint: config.SOLANA_WS_URL } : {}),
});
const metrics = createMetricsRegistry("watcher-solana");
// The endpoint must be the declared network before anything is credited, and stay so.
const preflight = await startChainGuardOrExit({
  service: "watcher-solana",
  probes: [solanaProbeFromConfig(config)],
  intervalMs: config.CHAIN_PREFLIGHT_INTERVAL_MS,
  log,
  metrics,
});
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
  ...watcherAttestor(config),
  crediting: () => preflight.crediting("solana"),
});
const health = await serveHealth({
  metrics,
  checks: { solana: () => connection.getSlot("confirmed"), preflight: () => preflight.ready() },
});

stopOnSignal([() => health.close(), async () => preflight.stop(), () => watcher.stop()]);
