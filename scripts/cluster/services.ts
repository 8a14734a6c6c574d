import { createHash } from "node:crypto";
import path from "node:path";
import { chainModule, perChain } from "@gateway/chains";
import { chainVariables } from "@gateway/config";
import { CHAINS, type Chain } from "@gateway/contracts";
import { fundServiceWallets as fundSolanaWallets } from "../../test/solana-localnet/src/fund-service-wallets.js";
import { fundServiceWallets as fundSuiWallets } from "../../test/sui-localnet/src/fund-service-wallets.js";
import { type DevSecrets, trustedApprovers } from "./dev-secrets.js";
import { fundLocalServiceWallets, type LocalFunding } from "./fund-service-wallets.js";
import { type OperatorSettings, withOperatorSettings } from "./operator-env.js";

export interface ClusterContext {
  root: string;
  dataDir: string;
  databaseUrl: string;
  natsUrl: string;
  secrets: DevSecrets;
  apiPort: number;
  publicBaseUrl: string;
  /** Development mTLS material written by the signer's dev-certs. */
  certsDir: string;
  /** Added to every fixed port, so a second cluster (a test's) can run beside a developer's. */
  portOffset: number;
  /** README's variables the operator set; they win over every value below (withOperatorSettings). */
  operator: OperatorSettings;
  /**
   * The local networks' identities, read from each once it is up: the services are told which
   * network they are on (SOLANA_GENESIS_HASH, SUI_CHAIN_ID) and refuse any other.
   */
  networks?: { solanaGenesisHash?: string; suiChainId?: string };
  /** `--live-dry-run`: the chain preflight runs every few seconds, so a fault shows at once. */
  liveDryRun?: boolean;
}

const p = (ctx: ClusterContext, port: number) => String(port + ctx.portOffset);

export interface ServiceSpec {
  name: string;
  /** Folder of the workspace package; its build target (scripts/build) runs `dist/main.js` there. */
  dir: string;
  env(ctx: ClusterContext): Record<string, string>;
  readyUrl(ctx: ClusterContext): string;
  /** What to print once everything is up. */
  urls?(ctx: ClusterContext): Record<string, string>;
  /** Runs once the service answers /readyz, before the next one starts. */
  afterReady?(ctx: ClusterContext, say: (line: string) => void): Promise<void>;
  /** Why the operator's settings make this service unneeded; undefined: it is started. */
  notNeeded?(ctx: ClusterContext): string | undefined;
}

const infra = (ctx: ClusterContext) => ({
  DATABASE_URL: ctx.databaseUrl,
  NATS_URL: ctx.natsUrl,
  LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
});

/** Each service presents the certificate of its own role (`<role>.pem` from dev-certs). */
const signerClient = (ctx: ClusterContext, role: "api" | "settlement") => ({
  SIGNER_URL: `https://127.0.0.1:${p(ctx, 7443)}`,
  SIGNER_CA_FILE: path.join(ctx.certsDir, "ca.pem"),
  SIGNER_CERT_FILE: path.join(ctx.certsDir, `${role}.pem`),
  SIGNER_KEY_FILE: path.join(ctx.certsDir, `${role}-key.pem`),
});

/** The watchers sign every final transfer with this key; the signer refunds only those. */
const watcherAttestor = (ctx: ClusterContext): Record<string, string> =>
  ctx.secrets.WATCHER_ATTESTOR
    ? {
        WATCHER_ATTESTATION_KEY_ID: ctx.secrets.WATCHER_ATTESTOR.keyId,
        WATCHER_ATTESTATION_SEED: ctx.secrets.WATCHER_ATTESTOR.seed,
      }
    : {};

/** Each service that talks to a chain checks its endpoint against these (packages/chain-preflight). */
const preflight = (ctx: ClusterContext): Record<string, string> =>
  ctx.liveDryRun ? { CHAIN_PREFLIGHT_INTERVAL_MS: "5000" } : {};

/**
 * The local Solana network, declared as such with the genesis hash it reported: a service pointed
 * at any other network refuses it. Unknown before the network is up (then the service would say so).
 */
const solanaRpc = (ctx: ClusterContext): Record<string, string> => ({
  SOLANA_RPC_URL: `http://127.0.0.1:${p(ctx, 8899)}`,
  SOLANA_WS_URL: `ws://127.0.0.1:${p(ctx, 8900)}`,
  SOLANA_NETWORK: "localnet",
  ...(ctx.networks?.solanaGenesisHash ? { SOLANA_GENESIS_HASH: ctx.networks.solanaGenesisHash } : {}),
  ...preflight(ctx),
});

/** The local Sui network's gRPC-Web endpoint, its chain identifier and its coin types (fixed by its default seed). */
const suiChain = (ctx: ClusterContext): Record<string, string> => ({
  SUI_GRPC_URL: `http://127.0.0.1:${p(ctx, 9000)}`,
  SUI_NETWORK: "localnet",
  ...(ctx.networks?.suiChainId ? { SUI_CHAIN_ID: ctx.networks.suiChainId } : {}),
  ...preflight(ctx),
  SUI_USDC_COIN_TYPE: "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdc::USDC",
  SUI_USDT_COIN_TYPE: "0x5ce079c1c76cf66da7ac9ae85f2774eb2e54538872f815bdbc296f68f5a07576::usdt::USDT",
});

/**
 * Live prices from the local price server (test/price-server), like the local chains; every
 * variable the operator sets wins, so real feeds are one PRICE_*_URL away.
 */
const priceFeeds = (ctx: ClusterContext): Record<string, string> => {
  const server = `http://127.0.0.1:${p(ctx, 8090)}`;
  const local: Record<string, string> = {
    PRICE_PYTH_URL: `${server}/pyth`,
    PRICE_COINBASE_URL: `${server}/coinbase`,
    PRICE_KRAKEN_URL: `${server}/kraken`,
    // Moving a price on the local server shows within two seconds.
    PRICE_REFRESH_MS: "2000",
  };
  const names = [...Object.keys(local), "PRICE_SOURCES", "PRICE_MAX_AGE_SECONDS", "PRICE_MAX_DEVIATION_BPS"];
  const operator = Object.fromEntries(
    names.flatMap((name) => (process.env[name] ? [[name, process.env[name] as string]] : [])),
  );
  return { ...local, ...operator };
};

/** The static header the local network sends with provider webhooks, derived from the dev secrets. */
const watcherAuthHeader = (ctx: ClusterContext) =>
  `Bearer ${createHash("sha256").update(`watcher-solana:${ctx.secrets.JWT_SECRET}`).digest("hex")}`;

/** A local network's `/info`: its identity, as it made it at start. */
async function localInfo<T>(baseUrl: string): Promise<T> {
  const response = await fetch(`${baseUrl}/info`);
  if (!response.ok) throw new Error(`${baseUrl}/info answered ${response.status}`);
  return (await response.json()) as T;
}

/** Each local network's port, the field of its `/info` that says who it is, and its funding of the service wallets. */
const LOCAL_NETWORKS = {
  solana: { port: 8899, field: "genesisHash", fund: fundSolanaWallets },
  sui: { port: 9000, field: "chainId", fund: fundSuiWallets },
} as const satisfies { readonly [C in Chain]: { port: number; field: string; fund: LocalFunding["fund"] } };

/** Each local network's funding of the service wallets, at the URL it is reached at. */
export function localFunding(urlOf: (chain: Chain) => string): { readonly [C in Chain]: LocalFunding } {
  return perChain(({ id }) => ({ url: urlOf(id), fund: LOCAL_NETWORKS[id].fund }));
}

/**
 * Once a local network is up, its identity declares it: the services started after it are told
 * which network they are on (ctx.networks) and refuse any other.
 */
async function declareLocalNetwork(ctx: ClusterContext, say: (line: string) => void, chain: Chain) {
  const local = LOCAL_NETWORKS[chain];
  const variables = chainVariables(chain);
  const info = await localInfo<Record<string, string>>(`http://127.0.0.1:${p(ctx, local.port)}`);
  const id = info[local.field] ?? "";
  ctx.networks = {
    ...ctx.networks,
    ...(chain === "solana" ? { solanaGenesisHash: id } : { suiChainId: id }),
  };
  say(
    `${chainModule(chain).name} local network declared: ${variables.network}=localnet ${variables.id}=${id}`,
  );
}

/**
 * Each chain's watcher: its health port and what it reads beside the infrastructure and the
 * attestation key. One process per chain, all from services/watcher (WATCHER_CHAIN picks the chain).
 */
const WATCHERS: {
  readonly [C in Chain]: { healthPort: number; env(ctx: ClusterContext): Record<string, string> };
} = {
  solana: {
    healthPort: 3103,
    env: (ctx) => ({
      ...solanaRpc(ctx),
      PORT: p(ctx, 3104),
      WEBHOOK_AUTH_HEADER: watcherAuthHeader(ctx),
      // The local network serves Helius' webhook API on its RPC port.
      PROVIDER_API_URL: `http://127.0.0.1:${p(ctx, 8899)}`,
      WATCHER_PUBLIC_URL: `http://127.0.0.1:${p(ctx, 3104)}/webhooks/solana`,
    }),
  },
  sui: { healthPort: 3105, env: suiChain },
};

const watcherService = (chain: Chain): ServiceSpec => ({
  name: `watcher-${chain}`,
  dir: "services/watcher",
  env: (ctx) => ({
    ...infra(ctx),
    WATCHER_CHAIN: chain,
    ...WATCHERS[chain].env(ctx),
    HEALTH_PORT: p(ctx, WATCHERS[chain].healthPort),
    ...watcherAttestor(ctx),
  }),
  readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, WATCHERS[chain].healthPort)}/readyz`,
});

/**
 * Every service of the local cluster, in start order. Each issue that adds a service adds it
 * here, so `npm start` always runs the whole system. The values are the runner's defaults: the
 * operator's settings replace them (clusterServices).
 */
export const SERVICES: ServiceSpec[] = [
  {
    name: "mail-catcher",
    dir: "test/mail-catcher",
    env: (ctx) => ({ MAIL_CATCHER_SMTP_PORT: p(ctx, 1025), MAIL_CATCHER_HTTP_PORT: p(ctx, 8025) }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 8025)}/healthz`,
    urls: (ctx) => ({ "mail catcher": `http://localhost:${p(ctx, 8025)}` }),
    notNeeded: (ctx) => (ctx.operator.SMTP_URL ? "SMTP_URL is set: mail goes there" : undefined),
  },
  {
    name: "price-server",
    dir: "test/price-server",
    env: (ctx) => ({
      PRICE_SERVER_PORT: p(ctx, 8090),
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 8090)}/healthz`,
    urls: (ctx) => ({ "price feeds (local)": `http://127.0.0.1:${p(ctx, 8090)}/control/state` }),
  },
  {
    name: "signer",
    dir: "signer",
    env: (ctx) => ({
      SIGNER_ENV: "development",
      SIGNER_HOST: "127.0.0.1",
      SIGNER_PORT: p(ctx, 7443),
      SIGNER_HEALTH_PORT: p(ctx, 7444),
      SIGNER_TLS_DIR: ctx.certsDir,
      SIGNER_SEED_MNEMONIC: ctx.secrets.SIGNER_SEED_MNEMONIC,
      SIGNER_TRUSTED_APPROVERS: trustedApprovers(ctx.secrets),
      // Development caps per intent and per day, in base units (1,000 and 100,000 whole coins).
      SIGNER_CAPS: JSON.stringify({
        "solana:*": { perIntent: "1000000000000", perDay: "100000000000000" },
        "sui:*": { perIntent: "1000000000000", perDay: "100000000000000" },
      }),
      SIGNER_AUDIT_LOG: path.join(ctx.dataDir, "signer", "audit.jsonl"),
      // Local networks: a new payout destination is in effect after a minute, not a day.
      SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS: process.env.SIGNER_PAYOUT_DESTINATION_DELAY_SECONDS ?? "60",
      SIGNER_LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 7444)}/readyz`,
  },
  {
    // Its USDC/USDT mints are mainnet's addresses, the services' defaults: no mint variables needed.
    name: "solana-localnet",
    dir: "test/solana-localnet",
    env: (ctx) => ({
      SOLANA_LOCALNET_HOST: "127.0.0.1",
      SOLANA_LOCALNET_PORT: p(ctx, 8899),
      SOLANA_LOCALNET_WS_PORT: p(ctx, 8900),
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 8899)}/healthz`,
    urls: (ctx) => ({ "Solana RPC (local)": `http://127.0.0.1:${p(ctx, 8899)}` }),
    afterReady: (ctx, say) => declareLocalNetwork(ctx, say, "solana"),
  },
  {
    name: "sui-localnet",
    dir: "test/sui-localnet",
    env: (ctx) => ({
      SUI_LOCALNET_HOST: "127.0.0.1",
      SUI_LOCALNET_PORT: p(ctx, 9000),
      SUI_LOCALNET_CHECKPOINT_MS: "250",
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 9000)}/healthz`,
    urls: (ctx) => ({ "Sui gRPC (local)": `http://127.0.0.1:${p(ctx, 9000)}` }),
    // Both local chains and the signer are up now: give the service wallets what they need.
    afterReady: async (ctx, say) => {
      await declareLocalNetwork(ctx, say, "sui");
      await fundLocalServiceWallets({
        certsDir: ctx.certsDir,
        signerUrl: `https://127.0.0.1:${p(ctx, 7443)}`,
        networks: localFunding((chain) => `http://127.0.0.1:${p(ctx, LOCAL_NETWORKS[chain].port)}`),
        say,
      });
    },
  },
  {
    name: "settlement",
    dir: "services/settlement",
    env: (ctx) => ({
      ...infra(ctx),
      ...signerClient(ctx, "settlement"),
      ...solanaRpc(ctx),
      ...suiChain(ctx),
      ...priceFeeds(ctx),
      HEALTH_PORT: p(ctx, 3101),
      PUBLIC_BASE_URL: ctx.publicBaseUrl,
      SETTLEMENT_APPROVER_KEY_ID: ctx.secrets.SETTLEMENT_APPROVER.keyId,
      SETTLEMENT_APPROVER_SEED: ctx.secrets.SETTLEMENT_APPROVER.seed,
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 3101)}/readyz`,
  },
  ...CHAINS.map(watcherService),
  {
    name: "notifier",
    dir: "services/notifier",
    env: (ctx) => ({
      ...infra(ctx),
      HEALTH_PORT: p(ctx, 3102),
      WEBHOOK_SECRET_KEY: ctx.secrets.WEBHOOK_SECRET_KEY,
      ALLOW_PRIVATE_WEBHOOKS: "true",
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${p(ctx, 3102)}/readyz`,
  },
  {
    name: "api",
    dir: "services/api",
    env: (ctx) => ({
      ...infra(ctx),
      ...signerClient(ctx, "api"),
      PORT: String(ctx.apiPort),
      PUBLIC_BASE_URL: ctx.publicBaseUrl,
      JWT_SECRET: ctx.secrets.JWT_SECRET,
      WEBHOOK_SECRET_KEY: ctx.secrets.WEBHOOK_SECRET_KEY,
      ALLOW_PRIVATE_WEBHOOKS: "true",
      SMTP_URL: `smtp://127.0.0.1:${p(ctx, 1025)}`,
      // Solana Pay transaction requests read the payer's balances and a blockhash here.
      SOLANA_RPC_URL: `http://127.0.0.1:${p(ctx, 8899)}`,
      API_APPROVER_KEY_ID: ctx.secrets.API_APPROVER.keyId,
      API_APPROVER_SEED: ctx.secrets.API_APPROVER.seed,
      ...priceFeeds(ctx),
      ...(process.env.QUOTE_TTL_SECONDS ? { QUOTE_TTL_SECONDS: process.env.QUOTE_TTL_SECONDS } : {}),
    }),
    readyUrl: (ctx) => `http://127.0.0.1:${ctx.apiPort}/readyz`,
    urls: (ctx) => ({
      dashboard: `${ctx.publicBaseUrl}/dashboard`,
      "merchant API": ctx.publicBaseUrl,
      "OpenAPI document": `${ctx.publicBaseUrl}/openapi.json`,
      "checkout page": `${ctx.publicBaseUrl}/gateway?payment_id=<id>`,
    }),
  },
];

/** The services to start, each with its environment as the operator's settings leave it. */
export function clusterServices(ctx: ClusterContext): (ServiceSpec & { skipped?: string })[] {
  return SERVICES.map((spec) => {
    const skipped = spec.notNeeded?.(ctx);
    return {
      ...spec,
      ...(skipped ? { skipped } : {}),
      env: (c: ClusterContext) => withOperatorSettings(spec.name, spec.env(c), c.operator),
    };
  });
}

/**
 * One environment with what every started service reads, for the doctor: settlement's signer
 * certificate and values last, as the doctor reaches the signer as settlement does.
 */
export function doctorEnv(
  services: readonly (ServiceSpec & { skipped?: string })[],
  ctx: ClusterContext,
): Record<string, string> {
  const order = ["api", "notifier", "watcher-sui", "watcher-solana", "settlement"];
  const env: Record<string, string> = {};
  for (const name of order) {
    const spec = services.find((s) => s.name === name && !s.skipped);
    if (spec) Object.assign(env, spec.env(ctx));
  }
  return env;
}
