import type { PayoutWalletRow } from "@gateway/payouts";

export function toPayoutWalletResource(row: PayoutWalletRow) {
  return {
    object: "payout_wallet" as const,
    chain: row.chain,
    address: row.address,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The code's purpose and what it is bound to: one chain, one address. */
export const WALLET_CODE_PURPOSE = "payout_wallet";
export const walletCodeBinding = (chain: string, address: string) => `${chain}:${address}`;
