// The process's settings, read once from the environment; a bad value stops start-up naming it.
export interface LocalnetConfig {
  port: number;
  host: string;
  checkpointIntervalMs: number;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv): LocalnetConfig {
  return {
    port: integer(env, "SUI_LOCALNET_PORT", 9000, 0, 65535),
    host: env["SUI_LOCALNET_HOST"] || "127.0.0.1",
    checkpointIntervalMs: integer(env, "SUI_LOCALNET_CHECKPOINT_MS", 250, 0, 3_600_000),
  };
}
