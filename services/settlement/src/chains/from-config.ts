import { readFileSync } from "node:fs";
import { type ChainProbe, solanaProbeFromConfig, suiProbeFromConfig } from "@gateway/chain-preflight";
import { createSolanaSettlement } from "@gateway/chain-solana";
import { createSuiSettlement } from "@gateway/chain-sui";
import { CHAINS, type Chain } from "@gateway/chains";
import type { SettlementConfig } from "@gateway/config";
import { createAuditHeadStore, type Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import {
  approverKeyFromSeed,
  createSignerClient,
  type SignerClient,
  withAuditHeadCheck,
} from "@gateway/signer-client";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Connection } from "@solana/web3.js";
import type { PayoutActorOptions } from "../payouts.js";
import { pausedWhileFailing } from "./chain-paused.js";
import { createChainPayout } from "./chain-payout.js";
import type { ChainSettlement, ChainSettlements } from "./chain-settlement.js";

export interface LiveChains {
  chains: ChainSettlements;
  payouts: Omit<PayoutActorOptions, "sql" | "bus" | "log">;
  signer: SignerClient | undefined;
}

/** What a chain adapter is built from: settlement's shared pieces. */
interface AdapterDeps {
  config: SettlementConfig;
  sql: Sql;
  log: Logger;
  signer: SignerClient;
  approver: { keyId: string; key: ReturnType<typeof approverKeyFromSeed> };
}

/** One chain's adapter: sweeps and refunds (ChainSettlement) and payouts, from the same runner. */
type ChainAdapter = ChainSettlement & Parameters<typeof createChainPayout>[1];

/**
 * Each registered chain's settlement adapter (from the registry's `chainPackage`). Kept here,
 * not in the registry, so the registry stays free of chain SDKs (the API and the domain import
 * it). The mapped type makes a chain of the registry without an adapter a compile error.
 */
const ADAPTERS: {
  readonly [C in Chain]: {
    configured(config: SettlementConfig): boolean;
    create(deps: AdapterDeps): ChainAdapter;
    /** The chain preflight of the endpoint `create` uses. */
    probe(config: SettlementConfig): ChainProbe;
  };
} = {
  solana: {
    configured: (config) => Boolean(config.SOLANA_RPC_URL),
    create({ config, sql, log, signer, approver }) {
      const connection = new Connection(config.SOLANA_RPC_URL!, {
        commitment: "confirmed",
        ...(config.SOLANA_WS_URL ? { wsEndpoint: config.SOLANA_WS_URL } : {}),
      });
      const mints = { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT };
      return createSolanaSettlement({ sql, connection, signer, approver, mints, log });
    },
    probe: (config) => solanaProbeFromConfig({ ...config, SOLANA_RPC_URL: config.SOLANA_RPC_URL! }),
  },
  sui: {
    configured: (config) => Boolean(config.SUI_GRPC_URL),
    create({ config, sql, log, signer, approver }) {
      const client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL! });
      const coinTypes = {
        SUI: "0x2::sui::SUI",
        USDC: config.SUI_USDC_COIN_TYPE,
        USDT: config.SUI_USDT_COIN_TYPE,
      };
      return createSuiSettlement({ sql, client, signer, approver, coinTypes, log });
    },
    probe: (config) => suiProbeFromConfig({ ...config, SUI_GRPC_URL: config.SUI_GRPC_URL! }),
  },
};

/**
 * Live settlement per configured chain (Solana when SOLANA_RPC_URL is set, Sui when SUI_GRPC_URL
 * is), each only with settlement's refund approver key (without it the signer refuses refunds, so
 * running half-configured would strand customers' money). Test mode needs none of this.
 */
/** The chains live settlement runs on: configured, and with settlement's approver key. */
function liveChainsOf(config: SettlementConfig): Chain[] {
  return config.SETTLEMENT_APPROVER_SEED ? CHAINS.filter((chain) => ADAPTERS[chain].configured(config)) : [];
}

/** The preflight of every chain live settlement sends on (none: test mode only). */
export function settlementProbes(config: SettlementConfig): ChainProbe[] {
  return liveChainsOf(config).map((chain) => ADAPTERS[chain].probe(config));
}

/**
 * `crediting(chain)`: the chain guard's verdict; while it is false the chain's adapter sends
 * nothing (ChainPausedError, retried later).
 */
export function liveChainsFromConfig(
  config: SettlementConfig,
  sql: Sql,
  log: Logger,
  crediting: (chain: Chain) => boolean,
): LiveChains {
  const wanted = CHAINS.filter((chain) => ADAPTERS[chain].configured(config));
  if (wanted.length > 0 && !config.SETTLEMENT_APPROVER_SEED) {
    log.warn("a chain is configured without SETTLEMENT_APPROVER_SEED: live settlement is off");
  }
  if (wanted.length === 0 || !config.SETTLEMENT_APPROVER_SEED)
    return { chains: {}, payouts: {}, signer: undefined };

  const file = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const [ca, cert, key] = [
    file(config.SIGNER_CA_FILE),
    file(config.SIGNER_CERT_FILE),
    file(config.SIGNER_KEY_FILE),
  ];
  // Every signature's audit head is kept in PostgreSQL; a signer whose log is behind it signs nothing.
  const signer = withAuditHeadCheck(
    createSignerClient({
      baseUrl: config.SIGNER_URL,
      ...(ca && cert && key ? { tls: { ca, cert, key } } : {}),
    }),
    createAuditHeadStore(sql, "settlement"),
  );
  const approver = {
    keyId: config.SETTLEMENT_APPROVER_KEY_ID,
    key: approverKeyFromSeed(Buffer.from(config.SETTLEMENT_APPROVER_SEED, "hex")),
  };

  const chains: ChainSettlements = {};
  const payouts: LiveChains["payouts"] = { chains: {} };
  for (const chain of wanted) {
    const adapter = pausedWhileFailing(
      ADAPTERS[chain].create({ config, sql, log, signer, approver }),
      crediting,
    );
    chains[chain] = adapter;
    payouts.chains![chain] = createChainPayout(chain, adapter);
  }
  return { chains, payouts, signer };
}
