// The probes of a service's configuration: the same values the service uses, the same variables.
import { type Chain, chainModule } from "@gateway/chains";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Connection } from "@solana/web3.js";
import type { ChainProbe, ProbeBasics } from "./check.js";
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

/**
 * What every probe takes from the configuration: the declared network, its identity (mainnet's
 * unless declared: the configuration refuses a localnet without one, packages/config) and the lag
 * allowed.
 */
function basics(
  chain: Chain,
  network: Network,
  networkId: string | undefined,
  config: { CHAIN_MAX_LAG_SECONDS: number },
): ProbeBasics {
  return {
    network,
    networkId: networkId ?? chainModule(chain).mainnet.networkId,
    maxLagMs: config.CHAIN_MAX_LAG_SECONDS * 1000,
  };
}

export function solanaProbeFromConfig(
  config: SolanaPreflightConfig,
  connection = new Connection(config.SOLANA_RPC_URL, "finalized"),
): ChainProbe {
  return createSolanaProbe({
    ...basics("solana", config.SOLANA_NETWORK, config.SOLANA_GENESIS_HASH, config),
    connection,
    mints: { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT },
  });
}

export function suiProbeFromConfig(
  config: SuiPreflightConfig,
  client = new SuiGrpcClient({ network: config.SUI_NETWORK, baseUrl: config.SUI_GRPC_URL }),
): ChainProbe {
  return createSuiProbe({
    ...basics("sui", config.SUI_NETWORK, config.SUI_CHAIN_ID, config),
    client,
    coinTypes: { USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
  });
}
