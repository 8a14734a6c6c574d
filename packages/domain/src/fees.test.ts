import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeFee, minimumFee } from "./fees.js";
import { CURRENCIES, type Currency, DECIMALS, formatAmount } from "./money.js";
import { type Prices, usdMicros } from "./prices.js";

const prices: Prices = { SOL: 150_000000n, SUI: 3_500000n };

describe("minimumFee", () => {
  it.each<[Currency, bigint]>([
    ["USD", 10n],
    ["USDC", 100_000n],
    ["USDT", 100_000n],
    // 0.10 / 150 SOL = 0.000666666666… rounded up to the lamport.
    ["SOL", 666_667n],
    // 0.10 / 3.5 SUI = 0.028571428571… rounded up.
    ["SUI", 28_571_429n],
  ])("is worth 0.10 USD in %s: %s base units", (currency, expected) => {
    expect(minimumFee(currency, prices)).toBe(expected);
  });
});

describe("computeFee", () => {
  it.each<[string, bigint, Currency, string]>([
    ["12.50 USD: 1% is 0.125, rounded half-up", 1250n, "USD", "0.13"],
    ["12.40 USD: 1% is 0.124, rounded down", 1240n, "USD", "0.12"],
    ["5.00 USDC: 1% is 0.05, below the minimum", 5_000_000n, "USDC", "0.10"],
    ["10.00 USD: 1% is exactly the minimum", 1000n, "USD", "0.10"],
    ["1000 USD", 100_000n, "USD", "10.00"],
    ["1,000,000 USDT", 1_000_000_000_000n, "USDT", "10000.00"],
    ["0.50 USD: the smallest payment pays the minimum", 50n, "USD", "0.10"],
    ["12.345678 USDC: 0.12345678 rounds half-up to 0.123457", 12_345_678n, "USDC", "0.123457"],
    ["12.34565 USDC: 0.1234565 rounds half-up to 0.123457", 12_345_650n, "USDC", "0.123457"],
    ["2 SOL at 150: 1% is 0.02 SOL (3 USD)", 2_000_000_000n, "SOL", "0.02"],
    ["0.01 SOL at 150: 1.50 USD, the minimum 0.000666667 SOL applies", 10_000_000n, "SOL", "0.000666667"],
    ["100 SUI at 3.50: 1% is 1 SUI", 100_000_000_000n, "SUI", "1.00"],
    ["1 SUI at 3.50: minimum 0.028571429 SUI", 1_000_000_000n, "SUI", "0.028571429"],
    ["0.0005 SOL: worth less than the minimum, the fee is capped at the amount", 500_000n, "SOL", "0.0005"],
  ])("%s → %s", (_label, amount, currency, expected) => {
    expect(formatAmount(computeFee(amount, currency, prices), currency)).toBe(expected);
  });

  it("is at most the amount, and at least the minimum unless the amount is smaller (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (currency, amount, price) => {
          const table = { SOL: price, SUI: price };
          const fee = computeFee(amount, currency, table);
          const minimum = minimumFee(currency, table);
          expect(fee).toBeLessThanOrEqual(amount);
          expect(fee).toBeGreaterThan(0n);
          if (amount >= minimum) expect(fee).toBeGreaterThanOrEqual(minimum);
          else expect(fee).toBe(amount);
        },
      ),
    );
  });

  it("is worth at least 0.10 USD whenever it is not capped (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (currency, amount, price) => {
          const table = { SOL: price, SUI: price };
          const fee = computeFee(amount, currency, table);
          if (fee < amount) {
            // Exact value, no rounding: stablecoins have 2 or 6 decimals, coins use the price.
            if (currency === "SOL" || currency === "SUI")
              expect(fee * price).toBeGreaterThanOrEqual(100_000n * 10n ** 9n);
            else expect(fee * 10n ** BigInt(6 - DECIMALS[currency])).toBeGreaterThanOrEqual(100_000n);
          }
        },
      ),
    );
  });

  it("is 1% of the amount within half a base unit once above the minimum (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 1n, max: 10n ** 18n }),
        (currency, amount) => {
          const fee = computeFee(amount, currency, prices);
          if (fee > minimumFee(currency, prices) && fee < amount) {
            // |fee - amount/100| <= 1/2, i.e. |100·fee - amount| <= 50, ties rounded up.
            const diff = fee * 100n - amount;
            expect(diff).toBeGreaterThan(-50n);
            expect(diff).toBeLessThanOrEqual(50n);
          }
          expect(usdMicros(fee, currency, prices)).toBeLessThanOrEqual(usdMicros(amount, currency, prices));
        },
      ),
    );
  });
});
