// Where a transaction can be looked at, per chain (keyed by the whole list, so a new chain does not
// compile until it has one). Test payments move nothing on chain and have no transactions.
import type { Chain } from "@gateway/contracts";

const EXPLORERS: Record<Chain, (txid: string) => string> = {
  solana: (txid) => `https://explorer.solana.com/tx/${encodeURIComponent(txid)}`,
  sui: (txid) => `https://suiscan.xyz/mainnet/tx/${encodeURIComponent(txid)}`,
};

export function explorerUrl(chain: Chain, txid: string): string {
  return EXPLORERS[chain](txid);
}
