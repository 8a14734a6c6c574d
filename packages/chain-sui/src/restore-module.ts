// Sui in the runbook after a restore of PostgreSQL (scripts/after-restore.ts): the coins of the
// coin types the signer signed for, and what became of a signed transaction.
import type { ChainRestoreModule } from "@gateway/chain-kit";
import type { Coin } from "@gateway/contracts";
import { normalizeStructTag } from "@mysten/sui/utils";
import { suiUnaryClient } from "./client.js";
import { suiTransactionOutcome } from "./transaction-outcome.js";

export const suiRestore: ChainRestoreModule = {
  coins(config) {
    // The signer spells coin types in their long form (normalizeStructTag); so are they looked up.
    const coins = new Map<string, Coin>([
      [normalizeStructTag(config.SUI_USDC_COIN_TYPE), "USDC"],
      [normalizeStructTag(config.SUI_USDT_COIN_TYPE), "USDT"],
      [normalizeStructTag("0x2::sui::SUI"), "SUI"],
    ]);
    return (asset) => {
      try {
        return coins.get(normalizeStructTag(asset));
      } catch {
        return undefined;
      }
    };
  },
  outcomes(config) {
    if (!config.SUI_GRPC_URL) return undefined;
    const client = suiUnaryClient(config.SUI_NETWORK, config.SUI_GRPC_URL);
    return (digest, bytes) => suiTransactionOutcome(client, digest, bytes);
  },
};
