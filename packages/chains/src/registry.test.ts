import { CHAINS, COINS } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import {
  CHAIN_COINS,
  CHAIN_MODULES,
  COIN_DECIMALS,
  chainModule,
  chainsOfAddress,
  isChain,
  nativeCoin,
} from "./registry.js";

const SOLANA = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const SUI = `0x${"Ab".repeat(32)}`;

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
      expect(chainModule(chain).assets.filter((a) => a.native)).toHaveLength(1);
    }
    expect(CHAIN_COINS).toEqual({ solana: ["USDC", "USDT", "SOL"], sui: ["USDC", "USDT", "SUI"] });
    expect(COIN_DECIMALS).toEqual({ USDC: 6, USDT: 6, SOL: 9, SUI: 9 });
    expect(nativeCoin("solana")).toBe("SOL");
    expect(nativeCoin("sui")).toBe("SUI");
  });

  it("knows its chains and nothing else", () => {
    expect(isChain("solana")).toBe(true);
    expect(isChain("sui")).toBe(true);
    for (const value of ["SOLANA", "toString", "__proto__", "", 1, null]) expect(isChain(value)).toBe(false);
  });

  it("names each chain's package after it", () => {
    for (const chain of CHAINS) expect(chainModule(chain).chainPackage).toBe(`@gateway/chain-${chain}`);
  });
});

describe("address rules", () => {
  it("solana: canonical base58 of 32 bytes, off-curve included", () => {
    const { parseAddress } = CHAIN_MODULES.solana;
    expect(parseAddress(SOLANA)).toBe(SOLANA);
    expect(parseAddress(` ${SOLANA} `)).toBe(SOLANA);
    // A program-derived (off-curve) address: the associated token program's.
    expect(parseAddress("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL")).toBe(
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
    );
    for (const bad of ["", "0OIl", SOLANA.slice(0, 20), `${SOLANA}1`, `1${SOLANA}`, SUI]) {
      expect(parseAddress(bad), bad).toBeUndefined();
    }
  });

  it("sui: 0x and 64 hex digits, lower-cased", () => {
    const { parseAddress } = CHAIN_MODULES.sui;
    expect(parseAddress(SUI)).toBe(SUI.toLowerCase());
    expect(parseAddress(` ${SUI}`)).toBe(SUI.toLowerCase());
    for (const bad of ["0x2", `0x${"a".repeat(63)}`, `0x${"g".repeat(64)}`, "a".repeat(64), SOLANA]) {
      expect(parseAddress(bad), bad).toBeUndefined();
    }
  });

  it("tells the chain of an address by the chains' own rules", () => {
    expect(chainsOfAddress(SOLANA)).toEqual([{ chain: "solana", address: SOLANA }]);
    expect(chainsOfAddress(SUI)).toEqual([{ chain: "sui", address: SUI.toLowerCase() }]);
    expect(chainsOfAddress("0xnope")).toEqual([]);
    // Address formats of the registered chains do not overlap.
    expect(chainsOfAddress(`0x${"1".repeat(64)}`).map((c) => c.chain)).toEqual(["sui"]);
  });
});

describe("payment URIs", () => {
  it("solana: a Solana Pay transfer request, with the mint for tokens", () => {
    const request = { address: SOLANA, amount: "12.5", label: "Acme & Co", message: "Order 7" };
    expect(CHAIN_MODULES.solana.paymentUri({ ...request, coin: "SOL", token: undefined })).toBe(
      `solana:${SOLANA}?amount=12.5&label=Acme%20%26%20Co&message=Order%207`,
    );
    expect(CHAIN_MODULES.solana.paymentUri({ ...request, coin: "USDC", token: "MintX", message: null })).toBe(
      `solana:${SOLANA}?amount=12.5&spl-token=MintX&label=Acme%20%26%20Co`,
    );
  });

  it("sui: none (no standard wallets share)", () => {
    expect(
      CHAIN_MODULES.sui.paymentUri({
        address: SUI,
        coin: "SUI",
        amount: "1",
        token: undefined,
        label: "x",
        message: null,
      }),
    ).toBeNull();
  });
});
