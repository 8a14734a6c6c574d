// The main entry's settings from the environment, checked once at start-up: a bad value
// stops the process with a message naming the variable.
import type { SolanaLocalnetOptions } from "./localnet.js";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv): SolanaLocalnetOptions {
  const expiry = env["SOLANA_LOCALNET_BLOCKHASH_EXPIRY_SLOTS"];
  const apiKey = env["SOLANA_LOCALNET_WEBHOOK_API_KEY"];
  return {
    host: env["SOLANA_LOCALNET_HOST"] || "127.0.0.1",
    rpcPort: integer(env, "SOLANA_LOCALNET_PORT", 8899, 0, 65535),
    wsPort: integer(env, "SOLANA_LOCALNET_WS_PORT", 8900, 0, 65535),
    slotMs: integer(env, "SOLANA_LOCALNET_SLOT_MS", 50, 0, 60_000),
    finalitySlots: integer(env, "SOLANA_LOCALNET_FINALITY_SLOTS", 8, 0, 10_000),
    ...(expiry
      ? { blockhashExpirySlots: integer(env, "SOLANA_LOCALNET_BLOCKHASH_EXPIRY_SLOTS", 150, 1, 1e6) }
      : {}),
    webhookRetries: integer(env, "SOLANA_LOCALNET_WEBHOOK_RETRIES", 3, 0, 100),
    webhookRetryDelayMs: integer(env, "SOLANA_LOCALNET_WEBHOOK_RETRY_MS", 60_000, 0, 3_600_000),
    ...(apiKey ? { webhookApiKey: apiKey } : {}),
  };
}
