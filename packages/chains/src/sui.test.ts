import { describe, expect, it } from "vitest";
import { chainsOfAddress } from "./registry.js";
import { sui } from "./sui.js";

const ADDRESS = `0x${"Ab".repeat(32)}`;

describe("sui's module", () => {
  it("takes 0x and 64 hex digits, lower-cased, and no other chain claims it", () => {
    expect(sui.parseAddress(ADDRESS)).toBe(ADDRESS.toLowerCase());
    expect(sui.parseAddress(` ${ADDRESS}`)).toBe(ADDRESS.toLowerCase());
    const bad = [
      "0x2",
      `0x${"a".repeat(63)}`,
      `0x${"g".repeat(64)}`,
      "a".repeat(64),
      "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
    ];
    for (const raw of bad) expect(sui.parseAddress(raw), raw).toBeUndefined();
    expect(chainsOfAddress(ADDRESS)).toEqual([{ chain: "sui", address: ADDRESS.toLowerCase() }]);
    expect(chainsOfAddress(`0x${"1".repeat(64)}`).map((found) => found.chain)).toEqual(["sui"]);
  });

  it("carries the stablecoins and SUI, whose 9 decimals are MIST", () => {
    expect(sui.assets.map((asset) => asset.coin)).toEqual(["USDC", "USDT", "SUI"]);
    expect(sui.assets.find((asset) => asset.native)).toEqual({ coin: "SUI", decimals: 9, native: true });
  });

  it("opens no payment URI: wallets share no standard", () => {
    const request = {
      address: ADDRESS,
      coin: "SUI",
      amount: "1",
      token: undefined,
      label: "x",
      message: null,
    } as const;
    expect(sui.paymentUri(request)).toBeNull();
  });
});
