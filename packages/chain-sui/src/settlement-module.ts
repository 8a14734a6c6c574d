// Sui in settlement (services/settlement): live when SUI_GRPC_URL is set; the adapter sweeps,
// refunds and pays out with sponsored transactions, over the endpoint the preflight probes.
import type { ChainSettlementModule } from "@gateway/chain-kit";
import { suiUnaryClient } from "./client.js";
import { suiProbeFromConfig } from "./preflight.js";
import { createSuiSettlement } from "./sui-settlement.js";

export const suiSettlement: ChainSettlementModule<"sui"> = {
  configured: (config) => Boolean(config.SUI_GRPC_URL),
  create({ config, sql, log, signer, approver }) {
    const client = suiUnaryClient(config.SUI_NETWORK, config.SUI_GRPC_URL!);
    const coinTypes = {
      SUI: "0x2::sui::SUI",
      USDC: config.SUI_USDC_COIN_TYPE,
      USDT: config.SUI_USDT_COIN_TYPE,
    };
    return createSuiSettlement({ sql, client, signer, approver, coinTypes, log });
  },
  probe: (config) => suiProbeFromConfig({ ...config, SUI_GRPC_URL: config.SUI_GRPC_URL! }),
};
