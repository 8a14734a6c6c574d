// `npm start` honours the operator: a variable of README.md's configuration table that is set in
// the runner's environment wins over the value the runner would give a service. The runner's own
// values are development defaults (a local mail catcher, secrets kept in the data folder, private
// webhooks allowed); an operator who names another mail server, secret or signer means it.
import { approverKeyFromSeed, approverPublicKeyHex } from "@gateway/signer-client";
import type { DevSecrets } from "./dev-secrets.js";

/** Every variable of README.md's configuration table, in its order (a test keeps the two equal). */
export const DOCUMENTED_VARIABLES = [
  "DATABASE_URL",
  "NATS_URL",
  "BUS_PREFIX",
  "PORT",
  "PUBLIC_BASE_URL",
  "SMTP_URL",
  "MAIL_FROM",
  "JWT_SECRET",
  "JWT_TTL_SECONDS",
  "TRUSTED_PROXIES",
  "RATE_LIMIT_PER_MINUTE",
  "WEBHOOK_SECRET_KEY",
  "ALLOW_PRIVATE_WEBHOOKS",
  "SIGNER_URL",
  "SIGNER_CA_FILE",
  "SIGNER_CERT_FILE",
  "SIGNER_KEY_FILE",
  "SOLANA_USDC_MINT",
  "SOLANA_USDT_MINT",
  "SOLANA_NETWORK",
  "SOLANA_GENESIS_HASH",
  "SUI_NETWORK",
  "SUI_CHAIN_ID",
  "CHAIN_PREFLIGHT_INTERVAL_MS",
  "CHAIN_MAX_LAG_SECONDS",
  "HEALTH_PORT",
  "EXPIRY_POLL_MS",
  "PRICE_SOURCES",
  "PRICE_PYTH_URL",
  "PRICE_COINBASE_URL",
  "PRICE_KRAKEN_URL",
  "PRICE_MAX_AGE_SECONDS",
  "PRICE_MAX_DEVIATION_BPS",
  "PRICE_REFRESH_MS",
  "QUOTE_TTL_SECONDS",
  "WATCHER_ATTESTATION_KEY_ID",
  "WATCHER_ATTESTATION_SEED",
  "LOG_LEVEL",
] as const;
export type DocumentedVariable = (typeof DOCUMENTED_VARIABLES)[number];

/**
 * Variables that mean one process's port, so one value cannot go to every service. `PORT` is
 * the API's (the watcher's webhook port is the runner's to place); `HEALTH_PORT` differs per
 * service, so the runner places it and GATEWAY_PORT_OFFSET moves every port at once.
 */
export const SERVICE_SCOPED: Readonly<Partial<Record<DocumentedVariable, readonly string[]>>> = {
  PORT: ["api"],
  HEALTH_PORT: [],
};

export type OperatorSettings = Readonly<Partial<Record<DocumentedVariable, string>>>;

/** The documented variables set in `env`; an empty value counts as unset, as the services read it. */
export function operatorSettings(env: Readonly<Record<string, string | undefined>>): OperatorSettings {
  const settings: Partial<Record<DocumentedVariable, string>> = {};
  for (const name of DOCUMENTED_VARIABLES) {
    const value = env[name];
    if (value !== undefined && value !== "") settings[name] = value;
  }
  return settings;
}

/** A service's environment with the operator's settings in place of the runner's. */
export function withOperatorSettings(
  service: string,
  runnerEnv: Record<string, string>,
  operator: OperatorSettings,
): Record<string, string> {
  const env = { ...runnerEnv };
  for (const [name, value] of Object.entries(operator) as [DocumentedVariable, string][]) {
    const scope = SERVICE_SCOPED[name];
    if (scope === undefined || scope.includes(service)) env[name] = value;
  }
  return env;
}

/**
 * The development secrets with the operator's in their place, so that what is derived from them
 * agrees: the signer trusts the watcher key the operator gave, not the one the runner made.
 */
export function withOperatorSecrets(secrets: DevSecrets, operator: OperatorSettings): DevSecrets {
  const seed = operator.WATCHER_ATTESTATION_SEED;
  const keyId = operator.WATCHER_ATTESTATION_KEY_ID;
  const watcher = secrets.WATCHER_ATTESTOR;
  return {
    ...secrets,
    JWT_SECRET: operator.JWT_SECRET ?? secrets.JWT_SECRET,
    WEBHOOK_SECRET_KEY: operator.WEBHOOK_SECRET_KEY ?? secrets.WEBHOOK_SECRET_KEY,
    WATCHER_ATTESTOR: seed
      ? {
          // The services' default key id, as they would read it without the variable.
          keyId: keyId ?? "watcher",
          seed,
          publicKey: approverPublicKeyHex(approverKeyFromSeed(Buffer.from(seed, "hex"))),
        }
      : watcher && { ...watcher, keyId: keyId ?? watcher.keyId },
  };
}
