// Every chain's package, one line each: the processes that run chain code (the watcher service,
// settlement, the restore runbook, the doctor) take it from here and from no chain package
// directly. `satisfies` makes a chain of the contracts without its package a compile error. The
// packages' parts are loaders, so importing this loads no chain's code.
import type { ChainPackage } from "@gateway/chain-kit";
import { solanaPackage } from "@gateway/chain-solana/chain-package";
import { suiPackage } from "@gateway/chain-sui/chain-package";
import { CHAINS, type Chain } from "@gateway/contracts";

export const CHAIN_PACKAGES = {
  solana: solanaPackage,
  sui: suiPackage,
} as const satisfies { readonly [C in Chain]: ChainPackage<C> };

/** The parts a process loads for every chain; a watcher loads its own chain's watcher alone. */
export type ChainPart = Exclude<keyof ChainPackage, "watcher">;
type Loaded<P extends ChainPart, C extends Chain> = Awaited<ReturnType<ChainPackage<C>[P]>>;

/** One part of every chain's package, loaded (settlement's modules, the restore's, the doctor's), keyed by chain. */
export async function loadEveryChain<P extends ChainPart>(part: P): Promise<{ [C in Chain]: Loaded<P, C> }> {
  const loaded = await Promise.all(
    CHAINS.map(async (chain) => [chain, await (CHAIN_PACKAGES[chain] as ChainPackage)[part]()] as const),
  );
  return Object.fromEntries(loaded) as { [C in Chain]: Loaded<P, C> };
}
