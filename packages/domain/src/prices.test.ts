import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Currency, MoneyError } from "./money.js";
import { checkPaymentLimits, type Prices, STATIC_TEST_PRICES, usdMicros } from "./prices.js";

const prices: Prices = { SOL: 150_000000n, SUI: 3_500000n };

function limitCode(amount: bigint, currency: Currency, table: Prices = prices): string | undefined {
  try {
    checkPaymentLimits(amount, currency, table);
  } catch (error) {
    if (error instanceof MoneyError) return error.code;
    throw error;
  }
  return undefined;
}

describe("STATIC_TEST_PRICES", () => {
  it("holds positive micro-USD prices for SOL and SUI", () => {
    expect(STATIC_TEST_PRICES.SOL).toBeGreaterThan(0n);
    expect(STATIC_TEST_PRICES.SUI).toBeGreaterThan(0n);
  });
});

describe("usdMicros", () => {
  it.each<[bigint, Currency, bigint]>([
    [1250n, "USD", 12_500_000n],
    [1n, "USD", 10_000n],
    [12_500_000n, "USDC", 12_500_000n],
    [1n, "USDT", 1n],
    [1_000_000_000n, "SOL", 150_000_000n],
    [1_500_000_000n, "SOL", 225_000_000n],
    [1n, "SOL", 0n],
    [7n, "SOL", 1n],
    [2_000_000_000n, "SUI", 7_000_000n],
  ])("%s %s is worth %s micro-USD (rounded down)", (amount, currency, expected) => {
    expect(usdMicros(amount, currency, prices)).toBe(expected);
  });

  it("refuses a missing or non-positive price", () => {
    expect(() => usdMicros(1n, "SOL", { SOL: 0n, SUI: 1n })).toThrow(MoneyError);
    expect(() => usdMicros(1n, "SUI", { SOL: 1n } as Prices)).toThrow(MoneyError);
    // Stablecoins never need the table.
    expect(usdMicros(1n, "USDC", { SOL: 0n, SUI: 0n })).toBe(1n);
  });

  it("never rounds up (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Currency>("SOL", "SUI"),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (currency, amount, price) => {
          const table = { SOL: price, SUI: price };
          const value = usdMicros(amount, currency, table);
          expect(value * 10n ** 9n).toBeLessThanOrEqual(amount * price);
          expect((value + 1n) * 10n ** 9n).toBeGreaterThan(amount * price);
        },
      ),
    );
  });
});

describe("checkPaymentLimits", () => {
  it.each<[bigint, Currency]>([
    [50n, "USD"],
    [500_000n, "USDC"],
    [500_000n, "USDT"],
    [100_000_000n, "USD"],
    [1_000_000_000_000n, "USDC"],
    [1n, "SOL"],
    [1n, "SUI"],
    // 1,000,000 USD at 150 USD/SOL is 6666.666666666 SOL.
    [6_666_666_666_666n, "SOL"],
  ])("accepts %s %s", (amount, currency) => {
    expect(limitCode(amount, currency)).toBeUndefined();
  });

  it.each<[bigint, Currency, string]>([
    [0n, "USD", "amount_not_positive"],
    [-1n, "SOL", "amount_not_positive"],
    [49n, "USD", "amount_too_small"],
    [499_999n, "USDC", "amount_too_small"],
    [1n, "USDT", "amount_too_small"],
    [100_000_001n, "USD", "amount_too_large"],
    [1_000_000_000_001n, "USDC", "amount_too_large"],
    [1_000_000_000_001n, "USDT", "amount_too_large"],
    // 6666.666666667 SOL is worth 1,000,000.00000005 USD: a fraction of a micro-USD too much.
    [6_666_666_666_667n, "SOL", "amount_too_large"],
    [285_714_285_715n * 1000n, "SUI", "amount_too_large"],
  ])("refuses %s %s with %s", (amount, currency, code) => {
    expect(limitCode(amount, currency)).toBe(code);
  });

  it("needs a price only for SOL and SUI", () => {
    expect(limitCode(1n, "SOL", { SOL: 0n, SUI: 1n })).toBe("price_unavailable");
    expect(limitCode(1000n, "USD", { SOL: 0n, SUI: 0n })).toBeUndefined();
  });
});
