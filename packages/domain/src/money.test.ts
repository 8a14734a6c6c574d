import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CURRENCIES,
  type Currency,
  DECIMALS,
  formatAmount,
  MoneyError,
  parseAmount,
  parseChain,
  parseCoin,
  parseCurrency,
} from "./money.js";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof MoneyError) return error.code;
    throw error;
  }
  return undefined;
}

describe("parseCurrency", () => {
  it.each([
    ["usd", "USD"],
    ["USD", "USD"],
    ["Usdc", "USDC"],
    ["usdt", "USDT"],
    ["sol", "SOL"],
    ["sUi", "SUI"],
  ])("reads %s as %s", (input, expected) => {
    expect(parseCurrency(input)).toBe(expected);
  });

  it.each([["EUR"], [" usd"], ["usd "], [""], [null], [undefined], [42], [{}], [["USD"]]])(
    "refuses %j with currency_unsupported",
    (input) => {
      expect(codeOf(() => parseCurrency(input))).toBe("currency_unsupported");
    },
  );

  it("raises a MoneyError that is an Error with a message", () => {
    const error = (() => {
      try {
        parseCurrency("BTC");
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(MoneyError);
    expect((error as MoneyError).name).toBe("MoneyError");
    expect((error as MoneyError).message).toContain("USD");
  });
});

describe("parseCoin and parseChain", () => {
  it("normalise case", () => {
    expect(parseCoin("usdc")).toBe("USDC");
    expect(parseCoin("Sol")).toBe("SOL");
    expect(parseChain("SOLANA")).toBe("solana");
    expect(parseChain("sui")).toBe("sui");
  });

  it("refuse what is not a coin or chain", () => {
    expect(codeOf(() => parseCoin("USD"))).toBe("coin_unsupported");
    expect(codeOf(() => parseCoin(1))).toBe("coin_unsupported");
    expect(codeOf(() => parseChain("ethereum"))).toBe("chain_unsupported");
    expect(codeOf(() => parseChain(undefined))).toBe("chain_unsupported");
  });
});

describe("parseAmount", () => {
  it.each<[unknown, Currency, bigint]>([
    [12.5, "USD", 1250n],
    ["12.50", "USD", 1250n],
    ["12.5", "USD", 1250n],
    [12, "USD", 1200n],
    ["12", "USD", 1200n],
    [0.01, "USD", 1n],
    ["0.01", "USD", 1n],
    [0.1, "USD", 10n],
    [1000000, "USD", 100000000n],
    [12.5, "USDC", 12_500_000n],
    ["0.000001", "USDC", 1n],
    [0.000001, "USDT", 1n],
    [1.5, "SOL", 1_500_000_000n],
    ["0.000000001", "SOL", 1n],
    [0.123456789, "SUI", 123456789n],
    ["12.500", "USD", 1250n],
    ["1.000000000000", "USDC", 1_000_000n],
    ["123456789012345678901234567890", "USD", 12345678901234567890123456789000n],
  ])("reads %j %s as %s base units", (input, currency, expected) => {
    expect(parseAmount(input, currency)).toBe(expected);
  });

  it("never goes through floats: 0.1 + 0.2 is too precise, not 0.30", () => {
    expect(codeOf(() => parseAmount(0.1 + 0.2, "USD"))).toBe("amount_too_precise");
    expect(parseAmount(0.3, "USD")).toBe(30n);
    // 1.005 * 100 is 100.49999999999999 in floats; the string route keeps 1.005 exact.
    expect(parseAmount(1.005, "USDC")).toBe(1_005_000n);
    expect(parseAmount(4.35, "USD")).toBe(435n);
  });

  it.each<[unknown, Currency]>([
    [1e-7, "SOL"],
    [1e21, "USD"],
    ["1e3", "USD"],
    ["1E3", "USD"],
    [Number.NaN, "USD"],
    [Number.POSITIVE_INFINITY, "USD"],
    [Number.NEGATIVE_INFINITY, "USD"],
    ["NaN", "USD"],
    ["Infinity", "USD"],
    ["", "USD"],
    [" 12", "USD"],
    ["12 ", "USD"],
    ["1 2", "USD"],
    ["\t12", "USD"],
    ["+12", "USD"],
    ["0x10", "USD"],
    ["0b1", "USD"],
    ["abc", "USD"],
    ["12abc", "USD"],
    ["1,50", "USD"],
    ["1_000", "USD"],
    ["12.", "USD"],
    [".5", "USD"],
    ["007", "USD"],
    ["-", "USD"],
    ["--1", "USD"],
    ["1.2.3", "USD"],
    ["١٢", "USD"],
    [null, "USD"],
    [undefined, "USD"],
    [true, "USD"],
    [{ amount: 12 }, "USD"],
    [[12], "USD"],
  ])("refuses %j (%s) as amount_invalid", (input, currency) => {
    expect(codeOf(() => parseAmount(input, currency))).toBe("amount_invalid");
  });

  it("refuses a bigint, which JSON cannot carry", () => {
    expect(codeOf(() => parseAmount(12n, "USD"))).toBe("amount_invalid");
  });

  it.each<[unknown, Currency]>([
    [0, "USD"],
    ["0", "USD"],
    ["0.00", "USD"],
    [-0, "USD"],
    ["-0", "USD"],
    [-1, "USD"],
    [-12.5, "USD"],
    ["-12.50", "USD"],
    ["-0.000000001", "SOL"],
  ])("refuses %j (%s) as amount_not_positive", (input, currency) => {
    expect(codeOf(() => parseAmount(input, currency))).toBe("amount_not_positive");
  });

  it.each<[unknown, Currency]>([
    [12.505, "USD"],
    ["12.505", "USD"],
    ["0.001", "USD"],
    ["0.0000001", "USDC"],
    [0.0000015, "USDT"],
    ["0.0000000001", "SOL"],
    ["1.0000000001", "SUI"],
    ["-0.001", "USD"],
  ])("refuses %j (%s) as amount_too_precise", (input, currency) => {
    expect(codeOf(() => parseAmount(input, currency))).toBe("amount_too_precise");
  });

  it("reads back every formatted amount exactly (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        (currency, units) => {
          expect(parseAmount(formatAmount(units, currency), currency)).toBe(units);
        },
      ),
    );
  });

  it("agrees with the decimal a JSON number prints as, for two-decimal USD amounts (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000 }), (cents) => {
        const asNumber = JSON.parse((cents / 100).toFixed(2)) as number;
        expect(parseAmount(asNumber, "USD")).toBe(BigInt(cents));
      }),
    );
  });
});

describe("formatAmount", () => {
  it.each<[bigint, Currency, string]>([
    [1250n, "USD", "12.50"],
    [1n, "USD", "0.01"],
    [100n, "USD", "1.00"],
    [0n, "USD", "0.00"],
    [12_500_000n, "USDC", "12.50"],
    [12_345_678n, "USDT", "12.345678"],
    [1_000_000n, "USDC", "1.00"],
    [1_500_000_000n, "SOL", "1.50"],
    [1n, "SOL", "0.000000001"],
    [1_000_000_001n, "SUI", "1.000000001"],
    [10n ** 30n, "USD", "10000000000000000000000000000.00"],
    [-1250n, "USD", "-12.50"],
  ])("prints %s %s as %s", (units, currency, expected) => {
    expect(formatAmount(units, currency)).toBe(expected);
  });

  it("always has at least two and at most DECIMALS decimals (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        (currency, units) => {
          const fraction = formatAmount(units, currency).split(".")[1] ?? "";
          expect(fraction.length).toBeGreaterThanOrEqual(2);
          expect(fraction.length).toBeLessThanOrEqual(Math.max(2, DECIMALS[currency]));
        },
      ),
    );
  });
});
