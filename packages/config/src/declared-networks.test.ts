import { describe, expect, it } from "vitest";
import {
  apiConfigSchema,
  ConfigError,
  parseConfig,
  settlementConfigSchema,
  watcherSolanaConfigSchema,
  watcherSuiConfigSchema,
} from "./index.js";

const base = { DATABASE_URL: "postgres://u@localhost/db", WEBHOOK_AUTH_HEADER: "Bearer 0123456789abcdef" };
const LOCAL_USDC = "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdc::USDC";
const LOCAL_USDT = "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdt::USDT";

function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  throw new Error("the configuration was accepted");
}

describe("network declarations", () => {
  it("default to mainnet with mainnet's tokens, which pass", () => {
    const solana = parseConfig("watcher-solana", watcherSolanaConfigSchema, base);
    expect(solana.SOLANA_NETWORK).toBe("mainnet");
    expect(solana.SOLANA_GENESIS_HASH).toBeUndefined();
    const sui = parseConfig("watcher-sui", watcherSuiConfigSchema, base);
    expect(sui.SUI_NETWORK).toBe("mainnet");
    expect(sui.CHAIN_PREFLIGHT_INTERVAL_MS).toBe(30_000);
    expect(sui.CHAIN_MAX_LAG_SECONDS).toBe(60);
  });

  it.each([
    ["SOLANA_USDC_MINT", "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", "is not mainnet's USDC"],
    ["SOLANA_USDT_MINT", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "is not mainnet's USDT"],
    ["SOLANA_GENESIS_HASH", "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG", "is not Solana mainnet's"],
  ])("refuse %s=%s on Solana mainnet", (variable, value, problem) => {
    const issues = issuesOf(() =>
      parseConfig("watcher-solana", watcherSolanaConfigSchema, { ...base, [variable]: value }),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]?.variable).toBe(variable);
    expect(issues[0]?.problem).toContain(problem);
  });

  it.each([
    ["SUI_USDC_COIN_TYPE", LOCAL_USDC, "is not mainnet's USDC"],
    ["SUI_USDT_COIN_TYPE", LOCAL_USDT, "is not mainnet's USDT"],
    ["SUI_CHAIN_ID", "4c78adac", "is not Sui mainnet's"],
  ])("refuse %s=%s on Sui mainnet", (variable, value, problem) => {
    const issues = issuesOf(() =>
      parseConfig("watcher-sui", watcherSuiConfigSchema, { ...base, [variable]: value }),
    );
    expect(issues.map((i) => i.variable)).toEqual([variable]);
    expect(issues[0]?.problem).toContain(problem);
  });

  it("take mainnet's chain id in both spellings and Wormhole's USDT as the bridged one", () => {
    for (const id of ["35834a8a", "4btiuiMPvEENsttpZC7CZ53DruC3MAgfznDbASZ7DR6S"]) {
      const config = parseConfig("watcher-sui", watcherSuiConfigSchema, {
        ...base,
        SUI_CHAIN_ID: id,
        SUI_USDT_COIN_TYPE: "0xc060006111016b8a020ad5b33834984a437aaa7d3c74c18e09a95d48aceab08c::coin::COIN",
      });
      expect(config.SUI_CHAIN_ID).toBe(id);
    }
  });

  it("require a local network's identity, and refuse mainnet's under a local name", () => {
    expect(
      issuesOf(() =>
        parseConfig("watcher-solana", watcherSolanaConfigSchema, { ...base, SOLANA_NETWORK: "localnet" }),
      ),
    ).toEqual([{ variable: "SOLANA_GENESIS_HASH", problem: "required with SOLANA_NETWORK=localnet" }]);
    expect(
      issuesOf(() =>
        parseConfig("watcher-sui", watcherSuiConfigSchema, {
          ...base,
          SUI_NETWORK: "localnet",
          SUI_CHAIN_ID: "35834a8a",
        }),
      ),
    ).toEqual([{ variable: "SUI_CHAIN_ID", problem: "is mainnet's: declare SUI_NETWORK=mainnet" }]);
    const local = parseConfig("watcher-sui", watcherSuiConfigSchema, {
      ...base,
      SUI_NETWORK: "localnet",
      SUI_CHAIN_ID: "8yNYmE6QhB1eZLbM3N2hcu3wDqaT1xXDEw8hTQxP1bDV",
      SUI_USDC_COIN_TYPE: LOCAL_USDC,
      SUI_USDT_COIN_TYPE: LOCAL_USDT,
    });
    expect(local.SUI_USDC_COIN_TYPE).toBe(LOCAL_USDC);
  });

  it("refuse devnet and testnet: money moves only on mainnet or a declared local network", () => {
    const issues = issuesOf(() =>
      parseConfig("watcher-sui", watcherSuiConfigSchema, { ...base, SUI_NETWORK: "devnet" }),
    );
    expect(issues.map((i) => i.variable)).toEqual(["SUI_NETWORK"]);
  });

  it("check the API's and settlement's tokens too", () => {
    const api = issuesOf(() =>
      parseConfig("api", apiConfigSchema, {
        ...base,
        JWT_SECRET: "x".repeat(32),
        WEBHOOK_SECRET_KEY: `${"A".repeat(43)}=`,
        SUI_USDC_COIN_TYPE: LOCAL_USDC,
      }),
    );
    expect(api.map((i) => i.variable)).toEqual(["SUI_USDC_COIN_TYPE"]);
    const settlement = issuesOf(() =>
      parseConfig("settlement", settlementConfigSchema, {
        ...base,
        SOLANA_USDC_MINT: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
      }),
    );
    expect(settlement.map((i) => i.variable)).toEqual(["SOLANA_USDC_MINT"]);
  });
});
