import { describe, expect, it } from "vitest";
import { isMainnetId, sameNetworkId } from "./index.js";

describe("network identities", () => {
  it("take Sui's chain identifier as the genesis checkpoint digest or its first four bytes in hex", () => {
    const mainnet = "4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S";
    expect(sameNetworkId("sui", mainnet, mainnet)).toBe(true);
    expect(sameNetworkId("sui", "35834a8a", mainnet)).toBe(true);
    expect(sameNetworkId("sui", "0x35834A8A", mainnet)).toBe(true);
    // Testnet's short form, and a reported value that is not base58.
    expect(sameNetworkId("sui", "4c78adac", mainnet)).toBe(false);
    expect(sameNetworkId("sui", "35834a8a", "not-base58-0OIl")).toBe(false);
    expect(isMainnetId("sui", "35834a8a")).toBe(true);
  });

  it("take Solana's genesis hash in its one spelling only", () => {
    const mainnet = "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d";
    expect(isMainnetId("solana", mainnet)).toBe(true);
    // The hex short form is Sui's convention, not Solana's.
    expect(sameNetworkId("solana", "5eykt4Us", mainnet)).toBe(false);
    expect(isMainnetId("solana", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG")).toBe(false);
  });
});
