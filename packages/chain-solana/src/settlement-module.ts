// Solana in settlement (services/settlement): live when SOLANA_RPC_URL is set; the adapter sweeps,
// refunds and pays out through one intent runner, over the endpoint the preflight probes.
import type { ChainSettlementModule } from "@gateway/chain-kit";
import { solanaConnection } from "./connection.js";
import { solanaProbeFromConfig } from "./preflight.js";
import { createSolanaSettlement } from "./solana-settlement.js";

export const solanaSettlement: ChainSettlementModule<"solana"> = {
  configured: (config) => Boolean(config.SOLANA_RPC_URL),
  create({ config, sql, log, signer, approver }) {
    const connection = solanaConnection(config.SOLANA_RPC_URL!, "confirmed", config.SOLANA_WS_URL);
    const mints = { USDC: config.SOLANA_USDC_MINT, USDT: config.SOLANA_USDT_MINT };
    return createSolanaSettlement({ sql, connection, signer, approver, mints, log });
  },
  probe: (config) => solanaProbeFromConfig({ ...config, SOLANA_RPC_URL: config.SOLANA_RPC_URL! }),
};
