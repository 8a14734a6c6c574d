// Solana in the runbook after a restore of PostgreSQL (scripts/after-restore.ts): the coins of the
// assets the signer signed for (a mint, or "SOL"), and what became of a signed transaction.
import type { ChainRestoreModule } from "@gateway/chain-kit";
import type { Coin } from "@gateway/contracts";
import { solanaConnection } from "./connection.js";
import { solanaTransactionOutcome } from "./transaction-outcome.js";

export const solanaRestore: ChainRestoreModule = {
  coins(config) {
    const coins = new Map<string, Coin>([
      [config.SOLANA_USDC_MINT, "USDC"],
      [config.SOLANA_USDT_MINT, "USDT"],
      ["SOL", "SOL"],
    ]);
    return (asset) => coins.get(asset);
  },
  outcomes(config) {
    if (!config.SOLANA_RPC_URL) return undefined;
    const connection = solanaConnection(config.SOLANA_RPC_URL, "finalized");
    return (txid, message) => solanaTransactionOutcome(connection, txid, message);
  },
};
