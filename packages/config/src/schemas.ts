import { CHAINS, type Chain, chainModule } from "@gateway/chains";
import { z } from "zod";
import { declaredNetworks } from "./declared-networks.js";
import { booleanFlag, commaList, logLevel, port, positiveInt, url, urlList } from "./fields.js";

/** How a service reaches the signer: gRPC over HTTP/2 with mutual TLS. */
export const signerClientFields = {
  SIGNER_URL: url(["https", "http"]).default("https://127.0.0.1:7443"),
  /** PEM files: the CA that signed the signer's certificate, and this client's certificate and key. */
  SIGNER_CA_FILE: z.string().optional(),
  SIGNER_CERT_FILE: z.string().optional(),
  SIGNER_KEY_FILE: z.string().optional(),
};

/** Variables every service that talks to PostgreSQL and NATS shares. */
const infrastructure = {
  DATABASE_URL: url(["postgres", "postgresql"]),
  NATS_URL: urlList(["nats", "tls", "ws", "wss"]).default("nats://127.0.0.1:4222"),
  LOG_LEVEL: logLevel,
  /** Prefix for JetStream stream and consumer names, so several deployments can share one NATS. */
  BUS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only")
    .default("gw"),
  /**
   * Replicas of each JetStream stream: 3 on a NATS cluster. Unset: 1 when a stream is created,
   * and an existing stream keeps whatever it has.
   */
  BUS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).optional(),
  /**
   * Connections this process keeps to PostgreSQL at most. Unset: the service's own default
   * (api and notifier 20, settlement 10, a watcher 5). Each backend keeps its prepared statements'
   * memory, so a deployment with many replicas may want fewer (docs/operations.md).
   */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
};

/** A stablecoin's default token id: mainnet's first, from the chain registry (packages/chains). */
function mainnetToken(chain: Chain, coin: "USDC" | "USDT"): string {
  const [first] = chainModule(chain).mainnet.tokens[coin];
  if (!first) throw new Error(`the chain registry names no mainnet ${coin} on ${chain}`);
  return first;
}

/**
 * The network money moves on: mainnet, or a local network declared with its identity. A service
 * refuses any other (declared-networks.ts), so a devnet endpoint or a local one nobody declared
 * never credits a balance.
 */
export const NETWORKS = ["mainnet", "localnet"] as const;

/** Where Sui is reached (gRPC-Web, `SuiGrpcClient`) and which coin types are the stablecoins. */
export const suiChainFields = {
  SUI_NETWORK: z.enum(NETWORKS).default("mainnet"),
  /** The chain identifier the endpoint must report: mainnet's by default; required for a localnet. */
  SUI_CHAIN_ID: z.string().optional(),
  SUI_GRPC_URL: url(["http", "https"]).default("http://127.0.0.1:9000"),
  /** Mainnet Circle USDC and bridged USDT by default; the local network passes its own. */
  SUI_USDC_COIN_TYPE: z.string().default(mainnetToken("sui", "USDC")),
  SUI_USDT_COIN_TYPE: z.string().default(mainnetToken("sui", "USDT")),
};

/** Which Solana network SOLANA_RPC_URL must be, by its genesis hash (mainnet's by default). */
export const solanaNetworkFields = {
  SOLANA_NETWORK: z.enum(NETWORKS).default("mainnet"),
  SOLANA_GENESIS_HASH: z.string().optional(),
};

/** Stablecoin mints on Solana (mainnet by default; the local cluster passes its own). */
export const solanaMintFields = {
  SOLANA_USDC_MINT: z.string().default(mainnetToken("solana", "USDC")),
  SOLANA_USDT_MINT: z.string().default(mainnetToken("solana", "USDT")),
};

/** A signing key's 32-byte ed25519 seed in hex; unset: the service signs nothing with it. */
const hexSeed = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "32 bytes in hex")
  .optional();

/** The key that encrypts webhook secrets at rest, and whether endpoints may be private addresses. */
const webhookSecretFields = {
  /** Key that encrypts webhook secrets at rest (32 bytes, base64). */
  WEBHOOK_SECRET_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "32 bytes in base64"),
  /** Development only: allow webhook URLs on loopback/private networks. */
  ALLOW_PRIVATE_WEBHOOKS: booleanFlag,
};

/**
 * The chain preflight (packages/chain-preflight): how often a service checks its endpoints again,
 * and how old the newest block or checkpoint may be before the endpoint counts as stale.
 */
export const preflightFields = {
  CHAIN_PREFLIGHT_INTERVAL_MS: positiveInt(30_000),
  CHAIN_MAX_LAG_SECONDS: positiveInt(60),
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
    /** Sui coin types of the payout stablecoins (payout approvals on Sui name them). */
    SUI_USDC_COIN_TYPE: suiChainFields.SUI_USDC_COIN_TYPE,
    SUI_USDT_COIN_TYPE: suiChainFields.SUI_USDT_COIN_TYPE,
    ...solanaMintFields,
    /** The networks those mints and coin types belong to: on mainnet, only mainnet's are accepted. */
    SOLANA_NETWORK: solanaNetworkFields.SOLANA_NETWORK,
    SUI_NETWORK: suiChainFields.SUI_NETWORK,
    /**
     * The Solana JSON-RPC node Solana Pay transaction requests read balances and blockhashes from;
     * unset: Solana wallets offer no `transaction_request_url`.
     */
    SOLANA_RPC_URL: url(["http", "https"]).optional(),
  }),
);
export type ApiConfig = z.infer<typeof apiConfigSchema>;

/**
 * A service that reads a chain: PostgreSQL and NATS, the chain preflight, and the networks it
 * is declared to be on (declared-networks.ts).
 */
function chainServiceSchema<F extends z.ZodRawShape>(fields: F) {
  return declaredNetworks(z.object({ ...infrastructure, ...preflightFields, ...fields }));
}

export const settlementConfigSchema = chainServiceSchema({
  ...priceFields,
  ...signerClientFields,
  HEALTH_PORT: port(3101),
  PUBLIC_BASE_URL: url(["http", "https"]).default("http://localhost:3000"),
  EXPIRY_POLL_MS: positiveInt(1000),
  /** Live settlement on Solana runs when this is set. */
  SOLANA_RPC_URL: url(["http", "https"]).optional(),
  SOLANA_WS_URL: url(["ws", "wss"]).optional(),
  ...solanaNetworkFields,
  ...solanaMintFields,
  /** Settlement's refund approver: its key id as the signer knows it and its 32-byte seed (hex). */
  SETTLEMENT_APPROVER_KEY_ID: z.string().default("settlement"),
  SETTLEMENT_APPROVER_SEED: hexSeed,
  /** Live settlement on Sui runs when SUI_GRPC_URL is set. */
  ...suiChainFields,
  SUI_GRPC_URL: url(["http", "https"]).optional(),
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
  ...solanaMintFields,
  SUI_USDC_COIN_TYPE: suiChainFields.SUI_USDC_COIN_TYPE,
  SUI_USDT_COIN_TYPE: suiChainFields.SUI_USDT_COIN_TYPE,
  /** Where to ask what became of the sweeps and refunds signed for payments the restore took away. */
  SOLANA_RPC_URL: url(["http", "https"]).optional(),
  SUI_GRPC_URL: url(["http", "https"]).optional(),
  SUI_NETWORK: suiChainFields.SUI_NETWORK,
});
export type AfterRestoreConfig = z.infer<typeof afterRestoreConfigSchema>;

/**
 * A watcher's attestation key: final deposit reports carry its signature, and the signer refunds
 * only attested transfers (SIGNER_TRUSTED_APPROVERS lists its public half with
 * `approves: "transfer"`). Unset: reports carry none, and live refunds are refused.
 */
const attestationFields = {
  WATCHER_ATTESTATION_KEY_ID: z.string().default("watcher"),
  WATCHER_ATTESTATION_SEED: hexSeed,
};

/**
 * `npm run retry-refund` (docs/operations.md, "A refund that failed on chain"): runs where the
 * watcher's attestation key is, never on settlement's host; asks the refund's chain whether its
 * transaction failed. A refund on a chain whose endpoint is unset is not retried.
 */
export const retryRefundConfigSchema = z.object({
  DATABASE_URL: infrastructure.DATABASE_URL,
  LOG_LEVEL: logLevel,
  BUS_PREFIX: infrastructure.BUS_PREFIX,
  SOLANA_RPC_URL: url(["http", "https"]).optional(),
  SUI_GRPC_URL: url(["http", "https"]).optional(),
  SUI_NETWORK: suiChainFields.SUI_NETWORK,
  WATCHER_ATTESTATION_KEY_ID: attestationFields.WATCHER_ATTESTATION_KEY_ID,
  WATCHER_ATTESTATION_SEED: z.string().regex(/^[0-9a-fA-F]{64}$/, "32 bytes in hex"),
});
export type RetryRefundConfig = z.infer<typeof retryRefundConfigSchema>;

/**
 * The watcher service (services/watcher) runs one chain's watcher: this variable says which, and
 * the chain's own schema below is then read under the service name `watcher-<chain>`.
 */
export const watcherConfigSchema = z.object({ WATCHER_CHAIN: z.enum(CHAINS) });

export const watcherSuiConfigSchema = chainServiceSchema({
  ...attestationFields,
  ...suiChainFields,
  HEALTH_PORT: port(3105),
  /** Stable per replica when set (a pod name); a fresh id per process otherwise. */
  SUI_WATCHER_REPLICA_ID: z.string().optional(),
  /** Addresses of payments that expired this long ago are still watched, for late transfers. */
  SUI_WATCHER_LATE_GRACE_MS: positiveInt(86_400_000),
});
export type WatcherSuiConfig = z.infer<typeof watcherSuiConfigSchema>;

export const watcherSolanaConfigSchema = chainServiceSchema({
  ...attestationFields,
  ...solanaNetworkFields,
  HEALTH_PORT: port(3103),
  /** Where provider webhooks arrive. */
  PORT: port(3104),
  SOLANA_RPC_URL: url(["http", "https"]).default("http://127.0.0.1:8899"),
  SOLANA_WS_URL: url(["ws", "wss"]).optional(),
  ...solanaMintFields,
  /** The static Authorization header the provider sends with every webhook. */
  WEBHOOK_AUTH_HEADER: z.string().min(16, "at least 16 characters"),
  /** Provider webhook API (Helius: https://api.helius.xyz; the local network: its RPC URL). Unset: no registration. */
  PROVIDER_API_URL: url(["http", "https"]).optional(),
  PROVIDER_API_KEY: z.string().optional(),
  /** Provider edits (each sends the whole address list, and Helius bills each) start at least this far apart. */
  PROVIDER_EDIT_GAP_MS: positiveInt(1000),
  /** The URL the provider posts to (this service's ingress as the provider reaches it). */
  WATCHER_PUBLIC_URL: url(["http", "https"]).default("http://127.0.0.1:3104/webhooks/solana"),
  /** Chain calls per second the reconciliation loop may make, whatever the number of open addresses. */
  RECONCILE_CALLS_PER_SECOND: positiveInt(20),
  /** Followed signatures are polled this often (one call per 256 signatures; none when nothing is followed). */
  SIGNATURE_POLL_MS: positiveInt(100),
  OPEN_ADDRESS_REFRESH_MS: positiveInt(1000),
  /** Addresses stay watched this long after expiry, for late transfers. */
  LATE_WINDOW_MS: positiveInt(24 * 3600_000),
  HEARTBEAT_MS: positiveInt(2000),
  /** Unique per replica; defaults to host name and pid. */
  REPLICA_ID: z.string().optional(),
});
export type WatcherSolanaConfig = z.infer<typeof watcherSolanaConfigSchema>;
