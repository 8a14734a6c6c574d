// The Sui endpoint's preflight: it is the declared network (GetServiceInfo's chain identifier),
// its newest checkpoint is recent, and both configured coin types exist with 6 decimals.
import { sameNetworkId } from "@gateway/chains";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import {
  type ChainProbe,
  checksOf,
  freshnessCheck,
  type PreflightCheck,
  type ProbeBasics,
  reason,
} from "./check.js";

export interface SuiProbeOptions extends ProbeBasics {
  client: Pick<SuiGrpcClient, "ledgerService" | "stateService">;
  /** The chain identifier declared (SUI_CHAIN_ID, or mainnet's). */
  chainId: string;
  coinTypes: { USDC: string; USDT: string };
}

export function createSuiProbe(options: SuiProbeOptions): ChainProbe {
  const { client } = options;
  const now = options.now ?? Date.now;
  const check = checksOf("sui");

  async function coin(symbol: "USDC" | "USDT"): Promise<PreflightCheck> {
    const variable = `SUI_${symbol}_COIN_TYPE`;
    const coinType = options.coinTypes[symbol];
    try {
      const { response } = await client.stateService.getCoinInfo({ coinType });
      const decimals = response.metadata?.decimals;
      if (decimals !== 6)
        return check(variable, false, `${coinType} has ${decimals ?? "no"} decimals, not 6`);
      return check(variable, true, `${symbol} coin type exists with 6 decimals`);
    } catch (err) {
      return check(variable, false, `${coinType} is unknown on this network: ${reason(err)}`);
    }
  }

  return {
    chain: "sui",
    endpoint: "SUI_GRPC_URL",
    async run() {
      let info: Awaited<ReturnType<SuiProbeOptions["client"]["ledgerService"]["getServiceInfo"]>>["response"];
      try {
        info = (await client.ledgerService.getServiceInfo({})).response;
      } catch (err) {
        return [check("SUI_GRPC_URL", false, `the endpoint did not answer: ${reason(err)}`)];
      }
      const network = options.network === "mainnet" ? "Sui mainnet" : "the declared local network";
      const reported = info.chainId ?? "";
      if (!sameNetworkId("sui", options.chainId, reported)) {
        return [
          check(
            "SUI_CHAIN_ID",
            false,
            `SUI_GRPC_URL is another network: chain ${reported || "(none)"} (${info.chain ?? "unnamed"}), not ${options.chainId} (${network})`,
          ),
        ];
      }
      const results = [check("SUI_CHAIN_ID", true, `SUI_GRPC_URL is ${network} (chain ${reported})`)];
      const stamp = info.timestamp;
      if (!stamp) {
        results.push(check("SUI_GRPC_URL", false, "the endpoint gave no checkpoint time"));
      } else {
        const lag = now() - (Number(stamp.seconds) * 1000 + Math.floor(stamp.nanos / 1e6));
        const newest = `newest checkpoint (${info.checkpointHeight ?? 0n})`;
        results.push(freshnessCheck(check, "SUI_GRPC_URL", newest, lag, options.maxLagMs));
      }
      results.push(await coin("USDC"), await coin("USDT"));
      return results;
    },
  };
}
