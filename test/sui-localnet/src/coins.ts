// The coin types this network knows: SUI (the gas coin) and two stablecoin-like types published
// at a package address the network makes up, with 6 decimals like USDC and USDT on mainnet.

import { normalizeStructTag, normalizeSuiAddress, toHex } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";

export type CoinSymbol = "SUI" | "USDC" | "USDT";
export const COIN_SYMBOLS: readonly CoinSymbol[] = ["SUI", "USDC", "USDT"];

export interface CoinInfo {
  symbol: CoinSymbol;
  /** Normalized struct tag of the coin's type parameter, e.g. `0x…02::sui::SUI`. */
  coinType: string;
  decimals: number;
  name: string;
}

export interface CoinRegistry {
  /** The made-up package that defines the USDC and USDT types. */
  packageId: string;
  coins: readonly CoinInfo[];
  bySymbol(symbol: CoinSymbol): CoinInfo;
  /** Looks up a coin type written in any accepted form (short or long addresses). */
  byType(coinType: string): CoinInfo | undefined;
}

export function createCoinRegistry(seed = "gateway-sui-localnet"): CoinRegistry {
  const packageId = normalizeSuiAddress(
    toHex(blake2b(new TextEncoder().encode(`${seed}:coins`), { dkLen: 32 })),
  );
  const coins: CoinInfo[] = [
    { symbol: "SUI", coinType: normalizeStructTag("0x2::sui::SUI"), decimals: 9, name: "Sui" },
    {
      symbol: "USDC",
      coinType: normalizeStructTag(`${packageId}::usdc::USDC`),
      decimals: 6,
      name: "USD Coin",
    },
    {
      symbol: "USDT",
      coinType: normalizeStructTag(`${packageId}::usdt::USDT`),
      decimals: 6,
      name: "Tether USD",
    },
  ];
  const byType = new Map(coins.map((coin) => [coin.coinType, coin]));
  return {
    packageId,
    coins,
    bySymbol(symbol) {
      const coin = coins.find((candidate) => candidate.symbol === symbol);
      if (!coin) throw new Error(`unknown coin ${symbol}`);
      return coin;
    },
    byType(coinType) {
      try {
        return byType.get(normalizeStructTag(coinType));
      } catch {
        return undefined;
      }
    },
  };
}

export function isCoinSymbol(value: unknown): value is CoinSymbol {
  return typeof value === "string" && (COIN_SYMBOLS as readonly string[]).includes(value);
}

/** Parses a decimal string such as "12.50" into base units; refuses more digits than the coin has. */
export function parseDecimalAmount(amount: string, decimals: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) throw new Error(`amount "${amount}" is not a non-negative decimal number`);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) throw new Error(`amount "${amount}" has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

export function formatAmount(baseUnits: bigint, decimals: number): string {
  const negative = baseUnits < 0n;
  const digits = (negative ? -baseUnits : baseUnits).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
