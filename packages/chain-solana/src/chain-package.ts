// Solana as the runtime takes it (packages/chain-packages): each part is loaded when a process asks.
import type { ChainPackage } from "@gateway/chain-kit";

export const solanaPackage: ChainPackage<"solana"> = {
  watcher: async () => (await import("./watcher/module.js")).solanaWatcher,
  settlement: async () => (await import("./settlement-module.js")).solanaSettlement,
  restore: async () => (await import("./restore-module.js")).solanaRestore,
  retry: async () => (await import("./retry-module.js")).solanaRetry,
  doctor: async () => (await import("./doctor-module.js")).solanaDoctor,
};
