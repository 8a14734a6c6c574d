import { describe, expect, it } from "vitest";
import { chainsOfAddress } from "./registry.js";
import { solana } from "./solana.js";

const ADDRESS = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
// A program-derived (off-curve) address: the associated token program's.
const OFF_CURVE = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

describe("solana's module", () => {
  it("takes canonical base58 of 32 bytes, off-curve included, and no other chain claims it", () => {
    expect(solana.parseAddress(ADDRESS)).toBe(ADDRESS);
    expect(solana.parseAddress(` ${ADDRESS} `)).toBe(ADDRESS);
    expect(solana.parseAddress(OFF_CURVE)).toBe(OFF_CURVE);
    for (const bad of [
      "",
      "0OIl",
      ADDRESS.slice(0, 20),
      `${ADDRESS}1`,
      `1${ADDRESS}`,
      `0x${"ab".repeat(32)}`,
    ]) {
      expect(solana.parseAddress(bad), bad).toBeUndefined();
    }
    expect(chainsOfAddress(ADDRESS)).toEqual([{ chain: "solana", address: ADDRESS }]);
    expect(chainsOfAddress(OFF_CURVE).map((found) => found.chain)).toEqual(["solana"]);
  });

  it("carries the stablecoins and SOL, whose 9 decimals are lamports", () => {
    expect(solana.assets.map((asset) => asset.coin)).toEqual(["USDC", "USDT", "SOL"]);
    expect(solana.assets.find((asset) => asset.native)).toEqual({ coin: "SOL", decimals: 9, native: true });
  });

  it("opens a Solana Pay transfer request, with the mint for tokens", () => {
    const request = { address: ADDRESS, amount: "12.5", label: "Acme & Co", message: "Order 7" };
    expect(solana.paymentUri({ ...request, coin: "SOL", token: undefined })).toBe(
      `solana:${ADDRESS}?amount=12.5&label=Acme%20%26%20Co&message=Order%207`,
    );
    expect(solana.paymentUri({ ...request, coin: "USDC", token: "MintX", message: null })).toBe(
      `solana:${ADDRESS}?amount=12.5&spl-token=MintX&label=Acme%20%26%20Co`,
    );
  });
});
