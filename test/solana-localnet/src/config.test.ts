import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("uses the documented defaults", () => {
    expect(loadConfig({})).toEqual({
      host: "127.0.0.1",
      rpcPort: 8899,
      wsPort: 8900,
      slotMs: 50,
      finalitySlots: 8,
      webhookRetries: 3,
      webhookRetryDelayMs: 60_000,
    });
  });

  it("reads the variables", () => {
    const config = loadConfig({
      SOLANA_LOCALNET_PORT: "0",
      SOLANA_LOCALNET_WS_PORT: "0",
      SOLANA_LOCALNET_SLOT_MS: "400",
      SOLANA_LOCALNET_FINALITY_SLOTS: "32",
      SOLANA_LOCALNET_BLOCKHASH_EXPIRY_SLOTS: "300",
      SOLANA_LOCALNET_WEBHOOK_API_KEY: "k",
    });
    expect(config).toMatchObject({
      rpcPort: 0,
      wsPort: 0,
      slotMs: 400,
      finalitySlots: 32,
      blockhashExpirySlots: 300,
      webhookApiKey: "k",
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ SOLANA_LOCALNET_SLOT_MS: "fast" })).toThrow(ConfigError);
    expect(() => loadConfig({ SOLANA_LOCALNET_PORT: "70000" })).toThrow(/SOLANA_LOCALNET_PORT/);
  });
});
