// Solana in the watcher service (services/watcher, WATCHER_CHAIN=solana): the variables, the
// RPC connection, and the watcher with its webhook ingress and, when a provider API is
// configured, the registration of the open addresses with it.
import os from "node:os";
import { type WatcherSolanaConfig, watcherSolanaConfigSchema } from "@gateway/config";
import { watcherAttestor } from "@gateway/signer-client";
import type { ChainWatcherModule } from "@gateway/watcher-kit";
import type { Connection } from "@solana/web3.js";
import { solanaConnection } from "../connection.js";
import { solanaProbeFromConfig } from "../preflight.js";
import { createHeliusRegistry } from "./address-registry.js";
import { type SolanaWatcher, startSolanaWatcher } from "./watcher.js";

export const solanaWatcher: ChainWatcherModule<"solana", WatcherSolanaConfig, Connection, SolanaWatcher> = {
  chain: "solana",
  configSchema: watcherSolanaConfigSchema,
  connect: (config) => solanaConnection(config.SOLANA_RPC_URL, "confirmed", config.SOLANA_WS_URL),
  // The probe reads at finality over a connection of its own.
  probe: (config) => solanaProbeFromConfig(config),
  start: (config, { client, sql, bus, log, metrics, crediting }) =>
    startSolanaWatcher({
      metrics,
      sql,
      bus,
      log,
      connection: client,
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
              minGapMs: config.PROVIDER_EDIT_GAP_MS,
            }),
          }
        : {}),
      reconcileCallsPerSecond: config.RECONCILE_CALLS_PER_SECOND,
      pollMs: config.SIGNATURE_POLL_MS,
      openRefreshMs: config.OPEN_ADDRESS_REFRESH_MS,
      lateWindowMs: config.LATE_WINDOW_MS,
      heartbeatMs: config.HEARTBEAT_MS,
      ...watcherAttestor(config),
      crediting,
    }),
  checks: (connection) => ({ solana: () => connection.getSlot("confirmed") }),
};
