// The chains' watchers, one per chain of the contracts: a chain without one does not compile.

import { solanaWatcher } from "@gateway/chain-solana";
import { suiWatcher } from "@gateway/chain-sui";
import type { Chain } from "@gateway/contracts";
import type { ChainWatcherModule } from "@gateway/watcher-kit";

export const WATCHERS = {
  solana: solanaWatcher,
  sui: suiWatcher,
} as const satisfies { readonly [C in Chain]: ChainWatcherModule<C> };
