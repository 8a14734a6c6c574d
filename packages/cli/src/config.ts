// The CLI's settings, read from the environment once at start-up.
import { CliError } from "./cli-error.js";

export interface CliConfig {
  /** GATEWAY_API_KEY: gw_test_… or gw_live_…. */
  apiKey: string;
  /** GATEWAY_BASE_URL, without a trailing slash; http://localhost:3000 by default. */
  baseUrl: string;
}

export const DEFAULT_BASE_URL = "http://localhost:3000";

export function readConfig(env: Record<string, string | undefined>): CliConfig {
  const apiKey = env.GATEWAY_API_KEY?.trim();
  if (!apiKey) throw new CliError("GATEWAY_API_KEY is not set: export your API key (gw_test_…) first.");
  if (!/^gw_(test|live)_\S+$/.test(apiKey))
    throw new CliError("GATEWAY_API_KEY is not an API key: it starts with gw_test_ or gw_live_.");
  const raw = env.GATEWAY_BASE_URL?.trim() || DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`GATEWAY_BASE_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new CliError(`GATEWAY_BASE_URL must be http or https: ${raw}`);
  return { apiKey, baseUrl: raw.replace(/\/+$/, "") };
}

/** `listen` and `trigger` work on test objects only. */
export function requireTestKey(config: CliConfig, command: string): void {
  if (!config.apiKey.startsWith("gw_test_"))
    throw new CliError(`gateway ${command} needs a test key (gw_test_…); GATEWAY_API_KEY is a live key.`);
}
