// Sui in the watcher service (services/watcher, WATCHER_CHAIN=sui): the variables, the gRPC
// client, the checkpoint watcher with its metrics, and its /status route.
import { type WatcherSuiConfig, watcherSuiConfigSchema } from "@gateway/config";
import { watcherAttestor } from "@gateway/signer-client";
import type { ChainWatcherModule } from "@gateway/watcher-kit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { suiProbeFromConfig } from "../preflight.js";
import { watcherSuiMetrics } from "./metrics.js";
import { type SuiWatcher, startSuiWatcher } from "./watcher.js";

export const suiWatcher: ChainWatcherModule<"sui", WatcherSuiConfig, SuiGrpcClient, SuiWatcher> = {
  chain: "sui",
  configSchema: watcherSuiConfigSchema,
  connect: (config) => new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL }),
  probe: (config, client) => suiProbeFromConfig(config, client),
  async start(config, { client, sql, bus, log, metrics, crediting }) {
    const watcher = await startSuiWatcher({
      sql,
      bus,
      client,
      log,
      coinTypes: { SUI: "0x2::sui::SUI", USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
      replicaId: config.SUI_WATCHER_REPLICA_ID,
      lateGraceMs: config.SUI_WATCHER_LATE_GRACE_MS,
      ...watcherAttestor(config),
      crediting,
    });
    watcherSuiMetrics(metrics, watcher, client);
    return watcher;
  },
  checks: (client) => ({ sui: () => client.ledgerService.getServiceInfo({}).response }),
  routes: (watcher) => ({
    "/status": (res) => {
      const s = watcher.status();
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ...s, checkpoint: s.checkpoint?.toString() ?? null }));
    },
  }),
};
