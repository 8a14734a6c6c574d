// The probes of a service's configuration: the same values the service uses, the same variables.
import { chainModule } from "@gateway/chains";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Connection } from "@solana/web3.js";
import type { ChainProbe } from "./check.js";
import { createSolanaProbe } from "./solana-probe.js";
import { createSuiProbe } from "./sui-probe.js";

type Network = "mainnet" | "localnet";

export interface SolanaPreflightConfig {
  SOLANA_RPC_URL: string;
  SOLANA_NETWORK: Network;
  SOLANA_GENESIS_HASH?: string | undefined;
  SOLANA_USDC_MINT: string;
  SOLANA_USDT_MINT: string;
  CHAIN_MAX_LAG_SECONDS: number;
}

export interface SuiPreflightConfig {
  SUI_GRPC_URL: string;
  SUI_NETWORK: Network;
  SUI_CHAIN_ID?: string | undefined;
  SUI_USDC_COIN_TYPE: string;
  SUI_USDT_COIN_TYPE: string;
  CHAIN_MAX_LAG_SECONDS: number;
}

export function solanaProbeFromConfig(
  config: SolanaPreflightConfig,
  connection = new Connection(config.SOLANA_RPC_URL, "finalized"),
): ChainProbe {
  return createSolanaProbe({
    connection,
    network: config.SOLANA_NETWORK,
    // The configuration refused a localnet without its genesis hash (packages/config).
    genesisHash: config.SOLANA_GENESIS_HASH ?? chainModule("solana").mainnet.networkId,
    mints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
    maxLagMs: config.CHAIN_MAX_LAG_SECONDS * 1000,
  });
}

export function suiProbeFromConfig(
  config: SuiPreflightConfig,
  client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL }),
): ChainProbe {
  return createSuiProbe({
    client,
    network: config.SUI_NETWORK,
    chainId: config.SUI_CHAIN_ID ?? chainModule("sui").mainnet.networkId,
    coinTypes: { USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
    maxLagMs: config.CHAIN_MAX_LAG_SECONDS * 1000,
  });
}
