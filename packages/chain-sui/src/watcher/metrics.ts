// The watcher's metrics, in a file of their own where Solana's sit in its watcher.ts: the lag
// gauge asks the full node at scrape time, so module.ts wires them with the client.
import { chainGauge, OPEN_ADDRESSES_GAUGE, prom, type Registry } from "@gateway/metrics";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import type { SuiWatcher } from "./watcher.js";

/**
 * Deposits reported, open addresses, and lag: how many checkpoints the slowest owned partition's
 * cursor is behind the chain's latest (read from the node at scrape time).
 */
export function watcherSuiMetrics(registry: Registry, watcher: SuiWatcher, client: SuiGrpcClient): void {
  let published = 0;
  new prom.Counter({
    name: "gateway_deposits_detected_total",
    help: "Deposit reports published",
    labelNames: ["chain"],
    registers: [registry],
    collect() {
      const now = watcher.status().depositsPublished;
      this.inc({ chain: "sui" }, now - published);
      published = now;
    },
  });
  chainGauge(registry, "sui", OPEN_ADDRESSES_GAUGE, () => watcher.status().openAddresses);
  chainGauge(
    registry,
    "sui",
    {
      name: "gateway_watcher_lag_checkpoints",
      help: "Checkpoints between the chain's latest and this replica's slowest cursor",
    },
    async () => {
      const { checkpoint } = watcher.status();
      const info = await client.ledgerService.getServiceInfo({}).response;
      const latest = info.checkpointHeight ?? 0n;
      return checkpoint === null ? 0 : Number(BigInt(latest) - checkpoint);
    },
  );
}
