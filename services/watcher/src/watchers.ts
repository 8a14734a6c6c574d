// The chains' watchers, one per chain of the contracts: a chain without one does not compile. Each
// is loaded when asked for, so a process loads only the package of the chain it watches.
import type { Chain } from "@gateway/contracts";
import type { ChainWatcherModule } from "@gateway/watcher-kit";

export const WATCHERS = {
  solana: async () => (await import("@gateway/chain-solana/watcher")).solanaWatcher,
  sui: async () => (await import("@gateway/chain-sui/watcher")).suiWatcher,
} as const satisfies { readonly [C in Chain]: () => Promise<ChainWatcherModule<C>> };
