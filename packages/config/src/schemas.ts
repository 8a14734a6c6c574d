import { CHAINS } from "@gateway/chains";
import { z } from "zod";
import { chainFields, chainServiceSchema, declaredNetworks } from "./chain-configs.js";
import { booleanFlag, commaList, logLevel, port, positiveInt, url } from "./fields.js";
import { attestationFields, hexSeed, infrastructure, preflightFields } from "./service-fields.js";

export { preflightFields };

/** How a service reaches the signer: gRPC over HTTP/2 with mutual TLS. */
export const signerClientFields = {
  SIGNER_URL: url(["https", "http"]).default("https://127.0.0.1:7443"),
  /** PEM files: the CA that signed the signer's certificate, and this client's certificate and key. */
  SIGNER_CA_FILE: z.string().optional(),
  SIGNER_CERT_FILE: z.string().optional(),
  SIGNER_KEY_FILE: z.string().optional(),
};

/** The key that encrypts webhook secrets at rest, and whether endpoints may be private addresses. */
const webhookSecretFields = {
  /** Key that encrypts webhook secrets at rest (32 bytes, base64). */
  WEBHOOK_SECRET_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "32 bytes in base64"),
  /** Development only: allow webhook URLs on loopback/private networks. */
  ALLOW_PRIVATE_WEBHOOKS: booleanFlag,
};

/** The public price feeds the price service knows how to read. */
export const PRICE_SOURCE_NAMES = ["pyth", "coinbase", "kraken"] as const;
export type PriceSourceName = (typeof PRICE_SOURCE_NAMES)[number];

/**
 * Live prices of SOL and SUI (packages/prices): which feeds, where, and how fresh and how close
 * they must be. Every URL can be pointed elsewhere (the local price server in development).
 */
export const priceFields = {
  /** Comma-separated, at least two: a price is the median of at least two fresh sources. */
  PRICE_SOURCES: z
    .string()
    .default(PRICE_SOURCE_NAMES.join(","))
    .transform((v) => [
      ...new Set(
        v
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      ),
    ])
    .refine(
      (list) => list.every((name) => (PRICE_SOURCE_NAMES as readonly string[]).includes(name)),
      `each one of ${PRICE_SOURCE_NAMES.join(", ")}`,
    )
    .refine((list) => list.length >= 2, "at least two sources")
    .transform((list) => list as PriceSourceName[]),
  PRICE_PYTH_URL: url(["http", "https"]).default("https://hermes.pyth.network"),
  PRICE_COINBASE_URL: url(["http", "https"]).default("https://api.coinbase.com"),
  PRICE_KRAKEN_URL: url(["http", "https"]).default("https://api.kraken.com"),
  PRICE_MAX_AGE_SECONDS: positiveInt(60),
  PRICE_MAX_DEVIATION_BPS: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How often every source is read in the background. */
  PRICE_REFRESH_MS: positiveInt(10_000),
};
export type PriceConfig = { [K in keyof typeof priceFields]: z.infer<(typeof priceFields)[K]> };

export const apiConfigSchema = declaredNetworks(
  z.object({
    ...infrastructure,
    ...priceFields,
    /** How long a quote (a USD payment paid in SOL/SUI) locks its rate; never past the payment's expiry. */
    QUOTE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    ...signerClientFields,
    PORT: port(3000),
    PUBLIC_BASE_URL: url(["http", "https"]).default("http://localhost:3000"),
    SMTP_URL: url(["smtp", "smtps"]).optional(),
    MAIL_FROM: z.string().default("Gateway <no-reply@gateway.local>"),
    /** Secret for dashboard JWTs (HS256); at least 32 characters. */
    JWT_SECRET: z.string().min(32, "at least 32 characters"),
    JWT_TTL_SECONDS: positiveInt(3600),
    /** Comma-separated proxy addresses whose X-Forwarded-For is believed. */
    TRUSTED_PROXIES: commaList,
    RATE_LIMIT_PER_MINUTE: positiveInt(100),
    ...webhookSecretFields,
    /** The key the signer trusts to approve payouts (hex seed of an ed25519 key) and its id. */
    API_APPROVER_KEY_ID: z.string().default("api"),
    API_APPROVER_SEED: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "32 bytes in hex")
      .optional(),
    /**
     * Minutes are enough: settlement executes a payout right after it is accepted, and the signer
     * refuses an approval that expired (or that is valid longer than SIGNER_APPROVAL_MAX_TTL_SECONDS).
     */
    API_PAYOUT_APPROVAL_TTL_SECONDS: z.coerce.number().int().min(30).max(900).default(600),
    /** Each chain's payout stablecoins and the network they belong to (on mainnet, only mainnet's). */
    ...chainFields("api"),
  }),
);
export type ApiConfig = z.infer<typeof apiConfigSchema>;

export const settlementConfigSchema = chainServiceSchema({
  ...priceFields,
  ...signerClientFields,
  HEALTH_PORT: port(3101),
  PUBLIC_BASE_URL: url(["http", "https"]).default("http://localhost:3000"),
  EXPIRY_POLL_MS: positiveInt(1000),
  /** Live settlement on a chain runs when its endpoint is set. */
  ...chainFields("settlement"),
  /** Settlement's refund approver: its key id as the signer knows it and its 32-byte seed (hex). */
  SETTLEMENT_APPROVER_KEY_ID: z.string().default("settlement"),
  SETTLEMENT_APPROVER_SEED: hexSeed,
});
export type SettlementConfig = z.infer<typeof settlementConfigSchema>;

export const notifierConfigSchema = z.object({
  ...infrastructure,
  HEALTH_PORT: port(3102),
  ...webhookSecretFields,
  DELIVERY_TIMEOUT_MS: positiveInt(10_000),
  /** Waits in ms after each failed webhook attempt, comma-separated (tests shorten it); empty: docs/webhooks.md's backoff. */
  NOTIFIER_RETRY_SCHEDULE_MS: commaList
    .transform((list) => list.map(Number))
    .refine(
      (list) => list.every((n) => Number.isSafeInteger(n) && n > 0),
      "positive integers, comma-separated",
    ),
  /** Webhook attempts in flight per notifier process. */
  NOTIFIER_CONCURRENCY: positiveInt(256),
});
export type NotifierConfig = z.infer<typeof notifierConfigSchema>;

export const migrateConfigSchema = z.object({
  DATABASE_URL: url(["postgres", "postgresql"]),
  LOG_LEVEL: logLevel,
});

/** `npm run after-restore` (docs/operations.md): the database, the bus prefix, the coins, and the chains' endpoints. */
export const afterRestoreConfigSchema = z.object({
  DATABASE_URL: infrastructure.DATABASE_URL,
  LOG_LEVEL: logLevel,
  BUS_PREFIX: infrastructure.BUS_PREFIX,
  /** The coins, and where to ask what became of the sweeps and refunds signed for payments the restore took away. */
  ...chainFields("afterRestore"),
});
export type AfterRestoreConfig = z.infer<typeof afterRestoreConfigSchema>;

/**
 * `npm run retry-refund` (docs/operations.md, "A refund that failed on chain"): runs where the
 * watcher's attestation key is, never on settlement's host; asks the refund's chain whether its
 * transaction failed. A refund on a chain whose endpoint is unset is not retried.
 */
export const retryRefundConfigSchema = z.object({
  DATABASE_URL: infrastructure.DATABASE_URL,
  LOG_LEVEL: logLevel,
  BUS_PREFIX: infrastructure.BUS_PREFIX,
  ...chainFields("retryRefund"),
  WATCHER_ATTESTATION_KEY_ID: attestationFields.WATCHER_ATTESTATION_KEY_ID,
  WATCHER_ATTESTATION_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, "32 bytes in hex"),
});
export type RetryRefundConfig = z.infer<typeof retryRefundConfigSchema>;

/**
 * The watcher service (services/watcher) runs one chain's watcher: this variable says which, and
 * the chain's own schema (chain-configs.ts) is then read under the service name `watcher-<chain>`.
 */
export const watcherConfigSchema = z.object({ WATCHER_CHAIN: z.enum(CHAINS) });
