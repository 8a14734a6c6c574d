// Solana in the operator's retry of a refund that failed on chain (scripts/retry-refund.ts):
// settlement's journal says which transaction to ask about, the endpoint at `finalized` whether it failed.
import type { ChainRetryModule } from "@gateway/chain-kit";
import { solanaConnection } from "./connection.js";
import { retryFailedIntent } from "./failed-intent-retry.js";

export const solanaRetry: ChainRetryModule = {
  variable: "SOLANA_RPC_URL",
  retrier(config, deps) {
    if (!config.SOLANA_RPC_URL) return undefined;
    const connection = solanaConnection(config.SOLANA_RPC_URL, "finalized");
    return (intentId, mode) => retryFailedIntent({ ...deps, connection }, intentId, mode);
  },
};
