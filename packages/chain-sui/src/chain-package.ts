// Sui as the runtime takes it (packages/chain-packages): each part is loaded when a process asks.
import type { ChainPackage } from "@gateway/chain-kit";

export const suiPackage: ChainPackage<"sui"> = {
  watcher: async () => (await import("./watcher/module.js")).suiWatcher,
  settlement: async () => (await import("./settlement-module.js")).suiSettlement,
  restore: async () => (await import("./restore-module.js")).suiRestore,
  retry: async () => (await import("./retry-module.js")).suiRetry,
  doctor: async () => (await import("./doctor-module.js")).suiDoctor,
};
