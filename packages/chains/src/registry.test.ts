// What holds for every registered chain; each chain's own rules are tested beside its module.
import { CHAINS, COINS } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import {
  CHAIN_COINS,
  CHAIN_MODULES,
  COIN_DECIMALS,
  chainAsset,
  chainModule,
  chainsOfAddress,
  isChain,
  nativeCoin,
} from "./registry.js";

describe("the chain registry", () => {
  it("has one module per chain of the contracts, each under its own id", () => {
    expect(Object.keys(CHAIN_MODULES).sort()).toEqual([...CHAINS].sort());
    for (const chain of CHAINS) expect(chainModule(chain).id).toBe(chain);
  });

  it("lists each chain's coins once, all of them known coins, exactly one native", () => {
    for (const chain of CHAINS) {
      const coins = CHAIN_COINS[chain];
      expect(new Set(coins).size).toBe(coins.length);
      for (const coin of coins) expect(COINS).toContain(coin);
      const natives = chainModule(chain).assets.filter((a) => a.native);
      expect(natives).toHaveLength(1);
      expect(nativeCoin(chain)).toBe(natives[0]?.coin);
    }
  });

  it("counts each coin in the decimals of every chain that carries it", () => {
    for (const chain of CHAINS) {
      for (const coin of CHAIN_COINS[chain])
        expect(chainAsset(chain, coin)?.decimals).toBe(COIN_DECIMALS[coin]);
    }
    expect(Object.keys(COIN_DECIMALS).sort()).toEqual([...COINS].sort());
  });

  it("knows its chains and nothing else", () => {
    for (const chain of CHAINS) expect(isChain(chain)).toBe(true);
    for (const value of ["SOLANA", "toString", "__proto__", "", 1, null]) expect(isChain(value)).toBe(false);
  });

  it("names each chain's package after it", () => {
    for (const chain of CHAINS) expect(chainModule(chain).chainPackage).toBe(`@gateway/chain-${chain}`);
  });

  it("finds no chain for what is no address", () => {
    for (const raw of ["", "0xnope", "not an address"]) expect(chainsOfAddress(raw)).toEqual([]);
  });
});
