import { describe, expect, it } from "vitest";
import { decimalToMicros, isPlausible, MAX_PLAUSIBLE_MICROS, pythToMicros } from "./micro-usd.js";

describe("decimalToMicros", () => {
  it.each([
    ["150.12", 150_120_000n],
    ["150", 150_000_000n],
    ["0.000001", 1n],
    ["3.5012345", 3_501_235n], // half up at the seventh decimal
    ["3.5012344", 3_501_234n],
    ["0.0000004", 0n],
    ["150.120000000000", 150_120_000n],
  ])("%s is %s micro-USD", (text, micros) => {
    expect(decimalToMicros(text)).toBe(micros);
  });

  it.each([["-150.12"], ["1e3"], ["+150"], [" 150"], ["150."], [".5"], ["0x10"], ["NaN"], [""], ["007"]])(
    "refuses %j",
    (text) => {
      expect(decimalToMicros(text)).toBeUndefined();
    },
  );

  it("refuses what is not a string", () => {
    expect(decimalToMicros(150.12)).toBeUndefined();
    expect(decimalToMicros(null)).toBeUndefined();
  });
});

describe("pythToMicros", () => {
  it("scales the integer price by its exponent, rounding half up", () => {
    expect(pythToMicros("15012345678", -8)).toBe(150_123_457n);
    expect(pythToMicros("15012345649", -8)).toBe(150_123_456n);
    expect(pythToMicros("350", -2)).toBe(3_500_000n);
    expect(pythToMicros("15", 1)).toBe(150_000_000n);
  });

  it("refuses negative prices, non-integers and absurd exponents", () => {
    expect(pythToMicros("-15012345678", -8)).toBeUndefined();
    expect(pythToMicros("150.5", -8)).toBeUndefined();
    expect(pythToMicros(15012345678, -8)).toBeUndefined();
    expect(pythToMicros("15012345678", -8.5)).toBeUndefined();
    expect(pythToMicros("15012345678", -40)).toBeUndefined();
    expect(pythToMicros("15012345678", "-8")).toBeUndefined();
  });
});

describe("isPlausible", () => {
  it("takes a positive price up to 1,000,000 USD per coin", () => {
    expect(isPlausible(1n)).toBe(true);
    expect(isPlausible(MAX_PLAUSIBLE_MICROS)).toBe(true);
    expect(isPlausible(MAX_PLAUSIBLE_MICROS + 1n)).toBe(false);
    expect(isPlausible(0n)).toBe(false);
    expect(isPlausible(-1n)).toBe(false);
    expect(isPlausible(undefined)).toBe(false);
  });
});
