// SIGNER_CHAINS is the signer's only list of chains: each entry must be told apart from the
// others by its name, its proto value and its keys (the keyring caches keys by coin type).
import { Chain } from "@gateway/signer-proto";
import { describe, expect, it } from "vitest";
import { chainOfProto, SIGNER_CHAINS, signerChain } from "./index.js";

const distinct = (values: unknown[]) => new Set(values).size === values.length;

describe("SIGNER_CHAINS", () => {
  it("has one name, one proto value and one coin type per chain", () => {
    expect(distinct(SIGNER_CHAINS.map((c) => c.name))).toBe(true);
    expect(distinct(SIGNER_CHAINS.map((c) => c.proto))).toBe(true);
    expect(distinct(SIGNER_CHAINS.map((c) => c.coinType))).toBe(true);
    expect(SIGNER_CHAINS.map((c) => c.proto)).not.toContain(Chain.UNSPECIFIED);
  });

  it("finds each chain by name and by proto value, and no chain for an unknown value", () => {
    for (const chain of SIGNER_CHAINS) {
      expect(signerChain(chain.name)).toBe(chain);
      expect(chainOfProto(chain.proto)).toBe(chain);
    }
    expect(chainOfProto(Chain.UNSPECIFIED)).toBeUndefined();
    expect(chainOfProto(99 as Chain)).toBeUndefined();
  });
});
