import { CHAIN_MODULES } from "@gateway/chains";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHAIN_COINS, canPay, chainCarries, coinsForPayment, needsQuote, toCoinUnits } from "./coins.js";
import { COINS, type Coin, CURRENCIES, type Currency, DECIMALS, formatAmount, MoneyError } from "./money.js";

describe("chains and coins", () => {
  it("solana carries USDC, USDT and SOL; sui carries USDC, USDT and SUI", () => {
    expect(CHAIN_COINS.solana).toEqual(["USDC", "USDT", "SOL"]);
    expect(CHAIN_COINS.sui).toEqual(["USDC", "USDT", "SUI"]);
    expect(chainCarries("solana", "SUI")).toBe(false);
    expect(chainCarries("sui", "SOL")).toBe(false);
  });
  it("counts every coin in the decimals the chain registry gives it on each chain", () => {
    for (const module of Object.values(CHAIN_MODULES)) {
      for (const asset of module.assets)
        expect([module.id, asset.coin, DECIMALS[asset.coin]]).toEqual([
          module.id,
          asset.coin,
          asset.decimals,
        ]);
    }
  });
});

describe("coinsForPayment", () => {
  it.each<[Currency, Array<{ chain: string; coin: string }>]>([
    [
      "USD",
      [
        { chain: "solana", coin: "USDC" },
        { chain: "solana", coin: "USDT" },
        { chain: "solana", coin: "SOL" },
        { chain: "sui", coin: "USDC" },
        { chain: "sui", coin: "USDT" },
        { chain: "sui", coin: "SUI" },
      ],
    ],
    [
      "USDC",
      [
        { chain: "solana", coin: "USDC" },
        { chain: "solana", coin: "USDT" },
        { chain: "sui", coin: "USDC" },
        { chain: "sui", coin: "USDT" },
      ],
    ],
    [
      "USDT",
      [
        { chain: "solana", coin: "USDC" },
        { chain: "solana", coin: "USDT" },
        { chain: "sui", coin: "USDC" },
        { chain: "sui", coin: "USDT" },
      ],
    ],
    ["SOL", [{ chain: "solana", coin: "SOL" }]],
    ["SUI", [{ chain: "sui", coin: "SUI" }]],
  ])("%s can be paid with %j", (currency, expected) => {
    expect(coinsForPayment(currency)).toEqual(expected);
  });

  it("agrees with canPay for every combination", () => {
    for (const currency of CURRENCIES) {
      for (const chain of ["solana", "sui"] as const) {
        for (const coin of COINS) {
          const listed = coinsForPayment(currency).some((o) => o.chain === chain && o.coin === coin);
          expect(canPay(currency, chain, coin)).toBe(listed);
        }
      }
    }
  });
});

describe("toCoinUnits", () => {
  it.each<[bigint, Currency, Coin, bigint]>([
    [1250n, "USD", "USDC", 12_500_000n],
    [1250n, "USD", "USDT", 12_500_000n],
    [1n, "USD", "USDC", 10_000n],
    [12_500_000n, "USDC", "USDC", 12_500_000n],
    [12_500_000n, "USDC", "USDT", 12_500_000n],
    [7n, "USDT", "USDC", 7n],
    [1_500_000_000n, "SOL", "SOL", 1_500_000_000n],
    [1n, "SUI", "SUI", 1n],
  ])("%s %s is %s %s units", (amount, currency, coin, expected) => {
    expect(toCoinUnits(amount, currency, coin)).toBe(expected);
  });

  it.each<[Currency, Coin]>([
    ["USD", "SOL"],
    ["USD", "SUI"],
    ["USDC", "SOL"],
    ["SOL", "USDC"],
    ["SOL", "SUI"],
    ["SUI", "SOL"],
    ["SUI", "USDT"],
  ])("refuses %s paid in %s at a fixed rate", (currency, coin) => {
    expect(() => toCoinUnits(100n, currency, coin)).toThrow(MoneyError);
    try {
      toCoinUnits(100n, currency, coin);
    } catch (error) {
      expect((error as MoneyError).code).toBe("coin_unsupported");
    }
  });

  it("keeps the displayed value: the coin amount prints as the same decimal (property)", () => {
    const pairs = CURRENCIES.flatMap((currency) =>
      coinsForPayment(currency)
        .filter(({ coin }) => !needsQuote(currency, coin))
        .map(({ coin }) => [currency, coin] as const),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...pairs),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        ([currency, coin], amount) => {
          const units = toCoinUnits(amount, currency, coin);
          expect(formatAmount(units, coin)).toBe(formatAmount(amount, currency));
          expect(units % 10n ** BigInt(DECIMALS[coin] - DECIMALS[currency])).toBe(0n);
        },
      ),
    );
  });
});

describe("needsQuote", () => {
  it("is true exactly for a USD payment paid in the chain's own coin", () => {
    for (const currency of CURRENCIES) {
      for (const coin of COINS) {
        expect(needsQuote(currency, coin)).toBe(currency === "USD" && (coin === "SOL" || coin === "SUI"));
      }
    }
  });
});
