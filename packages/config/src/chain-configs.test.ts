import { CHAINS } from "@gateway/chains";
import { describe, expect, it } from "vitest";
import { CHAIN_CONFIGS, type ChainReader, chainFields } from "./chain-configs.js";

const READERS: ChainReader[] = ["api", "settlement", "afterRestore", "retryRefund"];

describe("each chain's configuration", () => {
  it("declares its network with variables its services read", () => {
    for (const chain of CHAINS) {
      const config = CHAIN_CONFIGS[chain];
      const { network, id, tokens } = config.variables;
      expect(Object.keys(config.settlement), chain).toEqual(
        expect.arrayContaining([network, id, tokens.USDC, tokens.USDT]),
      );
      expect(Object.keys(config.api), chain).toEqual(
        expect.arrayContaining([network, tokens.USDC, tokens.USDT]),
      );
    }
  });

  it("keeps in Secrets only variables of its own", () => {
    for (const chain of CHAINS) {
      const config = CHAIN_CONFIGS[chain];
      const own = new Set([...READERS, "watcher" as const].flatMap((reader) => Object.keys(config[reader])));
      for (const secret of config.secrets) expect(own.has(secret), `${chain}: ${secret}`).toBe(true);
    }
  });

  it("gives each service every chain's fields, no variable named by two chains", () => {
    for (const reader of READERS) {
      const names = CHAINS.flatMap((chain) => Object.keys(CHAIN_CONFIGS[chain][reader]));
      expect(Object.keys(chainFields(reader)).sort()).toEqual([...new Set(names)].sort());
      expect(new Set(names).size, reader).toBe(names.length);
    }
  });
});
