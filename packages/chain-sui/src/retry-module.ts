// Sui in the operator's retry of a refund that failed on chain (scripts/retry-refund.ts):
// settlement's stored attempts say which transaction to ask about, the endpoint what became of it.
import type { ChainRetryModule } from "@gateway/chain-kit";
import { suiUnaryClient } from "./client.js";
import { retryFailedIntent } from "./failed-intent-retry.js";

export const suiRetry: ChainRetryModule = {
  variable: "SUI_GRPC_URL",
  retrier(config, deps) {
    if (!config.SUI_GRPC_URL) return undefined;
    const client = suiUnaryClient(config.SUI_NETWORK, config.SUI_GRPC_URL);
    return (intentId, mode) => retryFailedIntent({ ...deps, client }, intentId, mode);
  },
};
