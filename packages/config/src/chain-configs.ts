// Each chain's configuration, one entry per chain: the variables that declare its network, and
// the fields each service reads of it, which schemas.ts composes into the services' schemas.
// The chain packages import @gateway/config, so a chain's variables live here, not in its package.
import { CHAINS, type Chain, chainModule } from "@gateway/chains";
import { z } from "zod";
import { type ChainVariables, declaredNetworksOf, type NetworkDeclaration } from "./declared-networks.js";
import { port, positiveInt, url } from "./fields.js";
import { attestationFields, infrastructure, preflightFields } from "./service-fields.js";

/**
 * The network money moves on: mainnet, or a local network declared with its identity. A service
 * refuses any other (declared-networks.ts), so a devnet endpoint or a local one nobody declared
 * never credits a balance.
 */
export const NETWORKS = ["mainnet", "localnet"] as const;

/** A stablecoin's default token id: mainnet's first, from the chain registry (packages/chains). */
function mainnetToken(chain: Chain, coin: "USDC" | "USDT"): string {
  const [first] = chainModule(chain).mainnet.tokens[coin];
  if (!first) throw new Error(`the chain registry names no mainnet ${coin} on ${chain}`);
  return first;
}

/** The services that read a chain's fields, besides its watcher. */
export type ChainReader = "api" | "settlement" | "afterRestore" | "retryRefund";

export interface ChainConfig extends NetworkDeclaration, Record<ChainReader, z.ZodRawShape> {
  /** The watcher's own fields (with the attestation key and the chain service's, below). */
  watcher: z.ZodRawShape & { HEALTH_PORT: ReturnType<typeof port> };
  /**
   * The chain's variables a deployment keeps in a Secret (an endpoint's URL may carry an API key);
   * the manifests and the compose file give them to the services whose fields name them (deploy/).
   */
  secrets: readonly string[];
}

const endpoint = () => url(["http", "https"]).optional();

/** Which Solana network SOLANA_RPC_URL must be, by its genesis hash (mainnet's by default). */
const solanaNetwork = {
  SOLANA_NETWORK: z.enum(NETWORKS).default("mainnet"),
  SOLANA_GENESIS_HASH: z.string().optional(),
};
/** Stablecoin mints on Solana (mainnet by default; the local cluster passes its own). */
const solanaMints = {
  SOLANA_USDC_MINT: z.string().default(mainnetToken("solana", "USDC")),
  SOLANA_USDT_MINT: z.string().default(mainnetToken("solana", "USDT")),
};

const solana = {
  variables: {
    network: "SOLANA_NETWORK",
    id: "SOLANA_GENESIS_HASH",
    tokens: { USDC: "SOLANA_USDC_MINT", USDT: "SOLANA_USDT_MINT" },
  },
  api: {
    ...solanaMints,
    SOLANA_NETWORK: solanaNetwork.SOLANA_NETWORK,
    /** The node Solana Pay transaction requests read balances and blockhashes from; unset: no `transaction_request_url`. */
    SOLANA_RPC_URL: endpoint(),
  },
  settlement: {
    /** Live settlement on Solana runs when this is set. */
    SOLANA_RPC_URL: endpoint(),
    SOLANA_WS_URL: url(["ws", "wss"]).optional(),
    ...solanaNetwork,
    ...solanaMints,
  },
  /** Where after-restore asks what became of the transactions signed for payments the restore took away. */
  afterRestore: { ...solanaMints, SOLANA_RPC_URL: endpoint() },
  retryRefund: { SOLANA_RPC_URL: endpoint() },
  watcher: {
    ...solanaNetwork,
    HEALTH_PORT: port(3103),
    /** Where provider webhooks arrive. */
    PORT: port(3104),
    SOLANA_RPC_URL: url(["http", "https"]).default("http://127.0.0.1:8899"),
    SOLANA_WS_URL: url(["ws", "wss"]).optional(),
    ...solanaMints,
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
  },
  secrets: ["SOLANA_RPC_URL", "WEBHOOK_AUTH_HEADER", "PROVIDER_API_KEY"],
} as const satisfies ChainConfig;

/** Where Sui is reached (gRPC-Web, `SuiGrpcClient`) and which coin types are the stablecoins. */
const suiChain = {
  SUI_NETWORK: z.enum(NETWORKS).default("mainnet"),
  /** The chain identifier the endpoint must report: mainnet's by default; required for a localnet. */
  SUI_CHAIN_ID: z.string().optional(),
  SUI_GRPC_URL: url(["http", "https"]).default("http://127.0.0.1:9000"),
  /** Mainnet Circle USDC and bridged USDT by default; the local network passes its own. */
  SUI_USDC_COIN_TYPE: z.string().default(mainnetToken("sui", "USDC")),
  SUI_USDT_COIN_TYPE: z.string().default(mainnetToken("sui", "USDT")),
};
const suiCoinTypes = {
  SUI_USDC_COIN_TYPE: suiChain.SUI_USDC_COIN_TYPE,
  SUI_USDT_COIN_TYPE: suiChain.SUI_USDT_COIN_TYPE,
};

const sui = {
  variables: {
    network: "SUI_NETWORK",
    id: "SUI_CHAIN_ID",
    tokens: { USDC: "SUI_USDC_COIN_TYPE", USDT: "SUI_USDT_COIN_TYPE" },
  },
  /** One spelling per Sui type: `0x2::sui::SUI` and its 64-digit form are the same. */
  canonicalToken(id: string) {
    const [address = "", ...rest] = id.split("::");
    return [address.replace(/^0x/i, "").toLowerCase().padStart(64, "0"), ...rest].join("::");
  },
  /** The payout stablecoins' coin types (payout approvals on Sui name them), and their network. */
  api: { ...suiCoinTypes, SUI_NETWORK: suiChain.SUI_NETWORK },
  /** Live settlement on Sui runs when SUI_GRPC_URL is set. */
  settlement: { ...suiChain, SUI_GRPC_URL: endpoint() },
  afterRestore: { ...suiCoinTypes, SUI_GRPC_URL: endpoint(), SUI_NETWORK: suiChain.SUI_NETWORK },
  retryRefund: { SUI_GRPC_URL: endpoint(), SUI_NETWORK: suiChain.SUI_NETWORK },
  watcher: {
    ...suiChain,
    HEALTH_PORT: port(3105),
    /** Stable per replica when set (a pod name); a fresh id per process otherwise. */
    SUI_WATCHER_REPLICA_ID: z.string().optional(),
    /** Addresses of payments that expired this long ago are still watched, for late transfers. */
    SUI_WATCHER_LATE_GRACE_MS: positiveInt(86_400_000),
  },
  secrets: ["SUI_GRPC_URL"],
} as const satisfies ChainConfig;

export const CHAIN_CONFIGS = { solana, sui } as const satisfies { readonly [C in Chain]: ChainConfig };

/** The variables that declare a chain's network and tokens (for messages and the doctor). */
export function chainVariables(chain: Chain): ChainVariables {
  return CHAIN_CONFIGS[chain].variables;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
type FieldsOf<S extends ChainReader> = UnionToIntersection<(typeof CHAIN_CONFIGS)[Chain][S]>;

/** Every chain's fields a service reads; two chains naming the same variable stop the process at start-up. */
export function chainFields<S extends ChainReader>(service: S): FieldsOf<S> {
  const fields: Record<string, z.ZodType> = {};
  for (const chain of CHAINS) {
    for (const [name, field] of Object.entries(CHAIN_CONFIGS[chain][service])) {
      if (name in fields) throw new Error(`${name} is a variable of two chains`);
      fields[name] = field;
    }
  }
  return fields as FieldsOf<S>;
}

/** The variable each chain's payout stablecoin is configured by, typed for the configurations that hold them. */
type TokenVariable = (typeof CHAIN_CONFIGS)[Chain]["variables"]["tokens"]["USDC" | "USDT"];
export type ChainTokenConfig = { readonly [V in TokenVariable]: string };

/** The stablecoins' token ids a configuration names on each chain. */
export function configuredTokens(config: ChainTokenConfig): Record<Chain, { USDC: string; USDT: string }> {
  const table: Partial<Record<Chain, { USDC: string; USDT: string }>> = {};
  for (const chain of CHAINS) {
    const { tokens } = CHAIN_CONFIGS[chain].variables;
    table[chain] = { USDC: config[tokens.USDC], USDT: config[tokens.USDT] };
  }
  return table as Record<Chain, { USDC: string; USDT: string }>;
}

/**
 * A service schema whose parse also refuses a network declaration that does not hold together,
 * naming the variable (declared-networks.ts).
 */
export function declaredNetworks<S extends z.ZodObject>(schema: S): S {
  return declaredNetworksOf(schema, CHAIN_CONFIGS);
}

/**
 * A service that reads a chain: PostgreSQL and NATS, the chain preflight, and the networks it
 * is declared to be on.
 */
export function chainServiceSchema<F extends z.ZodRawShape>(fields: F) {
  return declaredNetworks(z.object({ ...infrastructure, ...preflightFields, ...fields }));
}

/** Each chain's watcher schema, read under the service name `watcher-<chain>` (services/watcher). */
export const watcherSolanaConfigSchema = chainServiceSchema({ ...attestationFields, ...solana.watcher });
export type WatcherSolanaConfig = z.infer<typeof watcherSolanaConfigSchema>;
export const watcherSuiConfigSchema = chainServiceSchema({ ...attestationFields, ...sui.watcher });
export type WatcherSuiConfig = z.infer<typeof watcherSuiConfigSchema>;
