// The Sui endpoint's chain preflight (packages/chain-preflight runs it): it is the declared network
// (GetServiceInfo's chain identifier), its newest checkpoint is recent, and both configured coin
// types exist with 6 decimals.
import {
  type ChainProbe,
  type CheckOf,
  chainProbe,
  type PreflightCheck,
  type ProbeBasics,
  probeBasics,
  reason,
} from "@gateway/chain-preflight";
import { sameNetworkId } from "@gateway/chains";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { suiUnaryClient } from "./client.js";

export interface SuiProbeOptions extends ProbeBasics {
  client: Pick<SuiGrpcClient, "ledgerService" | "stateService">;
  coinTypes: { USDC: string; USDT: string };
}

type ServiceInfo = Awaited<
  ReturnType<SuiProbeOptions["client"]["ledgerService"]["getServiceInfo"]>
>["response"];

export function createSuiProbe(options: SuiProbeOptions): ChainProbe {
  const { client } = options;
  return chainProbe<ServiceInfo>({
    ...options,
    chain: "sui",
    endpoint: "SUI_GRPC_URL",
    declaredBy: "SUI_CHAIN_ID",
    name: "Sui",
    identify: async () => (await client.ledgerService.getServiceInfo({})).response,
    compare: (info) => {
      const reported = info.chainId ?? "";
      return sameNetworkId("sui", options.networkId, reported)
        ? { same: `chain ${reported}` }
        : { other: `chain ${reported || "(none)"} (${info.chain ?? "unnamed"})` };
    },
    async newest(info, now) {
      const stamp = info.timestamp;
      if (!stamp) return "the endpoint gave no checkpoint time";
      return {
        newest: `newest checkpoint (${info.checkpointHeight ?? 0n})`,
        lagMs: now() - (Number(stamp.seconds) * 1000 + Math.floor(stamp.nanos / 1e6)),
      };
    },
    coin: (symbol, check) => coinTypeCheck(client, check, symbol, options.coinTypes[symbol]),
  });
}

/** The coin's configured type exists with 6 decimals. */
async function coinTypeCheck(
  client: SuiProbeOptions["client"],
  check: CheckOf,
  symbol: "USDC" | "USDT",
  coinType: string,
): Promise<PreflightCheck> {
  const variable = `SUI_${symbol}_COIN_TYPE`;
  try {
    const { response } = await client.stateService.getCoinInfo({ coinType });
    const decimals = response.metadata?.decimals;
    if (decimals !== 6) return check(variable, false, `${coinType} has ${decimals ?? "no"} decimals, not 6`);
    return check(variable, true, `${symbol} coin type exists with 6 decimals`);
  } catch (err) {
    return check(variable, false, `${coinType} is unknown on this network: ${reason(err)}`);
  }
}

/** The variables the probe reads: the watcher's, settlement's and the doctor's, the same names. */
export interface SuiPreflightConfig {
  SUI_GRPC_URL: string;
  SUI_NETWORK: "mainnet" | "localnet";
  SUI_CHAIN_ID?: string | undefined;
  SUI_USDC_COIN_TYPE: string;
  SUI_USDT_COIN_TYPE: string;
  CHAIN_MAX_LAG_SECONDS: number;
}

/** The probe of a service's configuration: the same values the service uses, the same variables. */
export function suiProbeFromConfig(
  config: SuiPreflightConfig,
  client = suiUnaryClient(config.SUI_NETWORK, config.SUI_GRPC_URL),
): ChainProbe {
  return createSuiProbe({
    ...probeBasics("sui", config.SUI_NETWORK, config.SUI_CHAIN_ID, config),
    client,
    coinTypes: { USDC: config.SUI_USDC_COIN_TYPE, USDT: config.SUI_USDT_COIN_TYPE },
  });
}
