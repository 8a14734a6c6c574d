// The chain registry: one line per chain (docs/adding-a-chain.md lists everything else a chain
// takes). `satisfies` makes a chain of the contracts' CHAINS without a module, or a module for a
// chain the contracts do not list, a compile error.
import { CHAINS, type Chain, COINS, type Coin } from "@gateway/contracts";
import type { ChainAsset, ChainModule } from "./chain-module.js";
import { solana } from "./solana.js";
import { sui } from "./sui.js";

export const CHAIN_MODULES = {
  solana,
  sui,
} as const satisfies { readonly [C in Chain]: ChainModule<C> };

export type { Chain };
export { CHAINS };

export function chainModule<C extends Chain>(chain: C): (typeof CHAIN_MODULES)[C] {
  return CHAIN_MODULES[chain];
}

export function isChain(value: unknown): value is Chain {
  return typeof value === "string" && Object.hasOwn(CHAIN_MODULES, value);
}

/** A table with one entry per registered chain, computed from its module. */
export function perChain<T>(entry: (module: ChainModule) => T): Readonly<Record<Chain, T>> {
  const table: Partial<Record<Chain, T>> = {};
  for (const chain of CHAINS) table[chain] = entry(CHAIN_MODULES[chain]);
  return table as Record<Chain, T>;
}

/** Coins each chain carries, in the order the checkout offers them. */
export const CHAIN_COINS: Readonly<Record<Chain, readonly Coin[]>> = perChain((module) =>
  module.assets.map((asset) => asset.coin),
);

/**
 * Base-unit decimals of each coin, from the chains that carry it. The money code counts a coin in
 * one set of decimals wherever it is paid, so chains that disagree (or a coin no chain carries)
 * stop the process at start-up rather than mis-scale an amount.
 */
export const COIN_DECIMALS: Readonly<Record<Coin, number>> = (() => {
  const decimals: Partial<Record<Coin, number>> = {};
  for (const chain of CHAINS) {
    for (const asset of CHAIN_MODULES[chain].assets) {
      const known = decimals[asset.coin];
      if (known !== undefined && known !== asset.decimals) {
        throw new Error(`${asset.coin} has ${asset.decimals} decimals on ${chain} but ${known} elsewhere`);
      }
      decimals[asset.coin] = asset.decimals;
    }
  }
  const missing = COINS.filter((coin) => decimals[coin] === undefined);
  if (missing.length > 0) throw new Error(`no chain carries ${missing.join(", ")}`);
  return decimals as Record<Coin, number>;
})();

export function chainAsset(chain: Chain, coin: Coin): ChainAsset | undefined {
  return CHAIN_MODULES[chain].assets.find((asset) => asset.coin === coin);
}

/** The coin that pays gas on `chain` (SOL, SUI): what a payout's network fee is counted in. */
export function nativeCoin(chain: Chain): Coin {
  const native = CHAIN_MODULES[chain].assets.find((asset) => asset.native);
  if (!native) throw new Error(`chain ${chain} lists no native coin`);
  return native.coin;
}

/**
 * The chains whose address rules accept `raw`, with its canonical form on each. Address formats
 * of the registered chains do not overlap today; a caller must still handle several matches.
 */
export function chainsOfAddress(raw: string): { chain: Chain; address: string }[] {
  const found: { chain: Chain; address: string }[] = [];
  for (const chain of CHAINS) {
    const address = CHAIN_MODULES[chain].parseAddress(raw);
    if (address !== undefined) found.push({ chain, address });
  }
  return found;
}
