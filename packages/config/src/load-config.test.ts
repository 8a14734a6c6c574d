import { CHAINS } from "@gateway/chains";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig, settlementConfigSchema, watcherConfigSchema } from "./index.js";

describe("parseConfig", () => {
  it("applies defaults and coerces numbers", () => {
    const config = parseConfig("settlement", settlementConfigSchema, {
      DATABASE_URL: "postgres://u@localhost/db",
      HEALTH_PORT: "4000",
    });
    expect(config.HEALTH_PORT).toBe(4000);
    expect(config.NATS_URL).toBe("nats://127.0.0.1:4222");
    expect(config.LOG_LEVEL).toBe("info");
  });

  it("names every bad variable in one error", () => {
    try {
      parseConfig("settlement", settlementConfigSchema, { HEALTH_PORT: "99999", NATS_URL: "http://x" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const names = (err as ConfigError).issues.map((i) => i.variable).sort();
      expect(names).toEqual(["DATABASE_URL", "HEALTH_PORT", "NATS_URL"]);
      expect((err as Error).message).toContain("HEALTH_PORT");
    }
  });

  it("takes DATABASE_POOL_SIZE as a whole number of connections, 1 to 200", () => {
    const base = { DATABASE_URL: "postgres://u@localhost/db" };
    expect(parseConfig("settlement", settlementConfigSchema, base).DATABASE_POOL_SIZE).toBeUndefined();
    expect(
      parseConfig("settlement", settlementConfigSchema, { ...base, DATABASE_POOL_SIZE: "8" })
        .DATABASE_POOL_SIZE,
    ).toBe(8);
    for (const bad of ["0", "2.5", "201", "many"]) {
      expect(() =>
        parseConfig("settlement", settlementConfigSchema, { ...base, DATABASE_POOL_SIZE: bad }),
      ).toThrow(/DATABASE_POOL_SIZE/);
    }
  });

  it("treats empty strings as unset", () => {
    const config = parseConfig("settlement", settlementConfigSchema, {
      DATABASE_URL: "postgres://u@localhost/db",
      NATS_URL: "",
    });
    expect(config.NATS_URL).toBe("nats://127.0.0.1:4222");
  });

  it("does not echo secret values in its message", () => {
    try {
      parseConfig("settlement", settlementConfigSchema, { DATABASE_URL: "not-a-url-secretvalue" });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain("secretvalue");
    }
  });
});

describe("WATCHER_CHAIN", () => {
  it("is one of the contracts' chains, and required", () => {
    for (const chain of CHAINS) {
      expect(parseConfig("watcher", watcherConfigSchema, { WATCHER_CHAIN: chain }).WATCHER_CHAIN).toBe(chain);
    }
    for (const value of [undefined, "", "SOLANA", "ethereum"]) {
      expect(
        () => parseConfig("watcher", watcherConfigSchema, { WATCHER_CHAIN: value }),
        String(value),
      ).toThrow(/^watcher: invalid configuration: WATCHER_CHAIN: /);
    }
  });
});

describe("NATS_URL", () => {
  it("takes a comma-separated cluster list and refuses a bad member", () => {
    const ok = parseConfig("settlement", settlementConfigSchema, {
      DATABASE_URL: "postgres://u@h/db",
      NATS_URL: "nats://a:4222,nats://b:4222",
    });
    expect(ok.NATS_URL).toBe("nats://a:4222,nats://b:4222");
    expect(() =>
      parseConfig("settlement", settlementConfigSchema, {
        DATABASE_URL: "postgres://u@h/db",
        NATS_URL: "nats://a:4222,http://b",
      }),
    ).toThrow(/NATS_URL/);
  });
});

describe("price variables", () => {
  const base = { DATABASE_URL: "postgres://u@localhost/db" };

  it("default to the three public feeds, fresh for 60 s and within 1 % of each other (docs/payment-lifecycle.md)", () => {
    const config = parseConfig("settlement", settlementConfigSchema, base);
    expect(config.PRICE_SOURCES).toEqual(["pyth", "coinbase", "kraken"]);
    expect(config.PRICE_PYTH_URL).toBe("https://hermes.pyth.network");
    expect(config.PRICE_MAX_AGE_SECONDS).toBe(60);
    expect(config.PRICE_MAX_DEVIATION_BPS).toBe(100);
  });

  it.each([
    ["pyth", "at least two sources"],
    ["pyth,bloomberg", "each one of pyth, coinbase, kraken"],
    ["pyth,pyth", "at least two sources"],
  ])("refuse PRICE_SOURCES=%s", (value, problem) => {
    try {
      parseConfig("settlement", settlementConfigSchema, { ...base, PRICE_SOURCES: value });
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).issues).toContainEqual({ variable: "PRICE_SOURCES", problem });
    }
  });

  it("take any URL for a source, so the operator's choice wins", () => {
    const config = parseConfig("settlement", settlementConfigSchema, {
      ...base,
      PRICE_SOURCES: "Kraken, coinbase",
      PRICE_KRAKEN_URL: "http://127.0.0.1:8090/kraken",
    });
    expect(config.PRICE_SOURCES).toEqual(["kraken", "coinbase"]);
    expect(config.PRICE_KRAKEN_URL).toBe("http://127.0.0.1:8090/kraken");
  });
});
