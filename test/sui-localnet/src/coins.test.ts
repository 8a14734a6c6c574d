import { describe, expect, it } from "vitest";
import { createCoinRegistry, formatAmount, parseDecimalAmount } from "./coins.js";
import { loadConfig } from "./config.js";

describe("amounts", () => {
  it("parses decimal strings into base units exactly", () => {
    expect(parseDecimalAmount("12.50", 6)).toBe(12_500_000n);
    expect(parseDecimalAmount("0.000001", 6)).toBe(1n);
    expect(parseDecimalAmount("3", 9)).toBe(3_000_000_000n);
    expect(() => parseDecimalAmount("0.0000001", 6)).toThrow(/more than 6 decimals/);
    expect(() => parseDecimalAmount("-1", 6)).toThrow();
    expect(() => parseDecimalAmount("1e3", 6)).toThrow();
  });

  it("formats base units back without trailing zeros", () => {
    expect(formatAmount(12_500_000n, 6)).toBe("12.5");
    expect(formatAmount(1n, 9)).toBe("0.000000001");
    expect(formatAmount(-2_000_000n, 6)).toBe("-2");
  });
});

describe("coin registry", () => {
  it("knows SUI and two 6-decimal stablecoins at one made-up package, in any address form", () => {
    const registry = createCoinRegistry();
    const usdc = registry.bySymbol("USDC");
    expect(usdc.decimals).toBe(6);
    expect(usdc.coinType).toBe(`${registry.packageId}::usdc::USDC`);
    expect(registry.byType("0x2::sui::SUI")?.symbol).toBe("SUI");
    expect(registry.byType("not a type")).toBeUndefined();
    expect(createCoinRegistry("other").packageId).not.toBe(registry.packageId);
  });
});

describe("config", () => {
  it("reads the port and checkpoint interval and names a bad variable", () => {
    expect(loadConfig({})).toEqual({ port: 9000, host: "127.0.0.1", checkpointIntervalMs: 250 });
    expect(loadConfig({ SUI_LOCALNET_PORT: "0", SUI_LOCALNET_CHECKPOINT_MS: "100" })).toMatchObject({
      port: 0,
      checkpointIntervalMs: 100,
    });
    expect(() => loadConfig({ SUI_LOCALNET_CHECKPOINT_MS: "fast" })).toThrow(/SUI_LOCALNET_CHECKPOINT_MS/);
  });
});
