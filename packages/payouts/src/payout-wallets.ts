// The `payout_wallets` table: the one wallet per chain that a merchant linked with an e-mailed
// code, where the scheduled payout goes and a manual one goes by default.
import type { Chain } from "@gateway/contracts";
import type { Sql, TransactionSql } from "@gateway/db";

export interface PayoutWalletRow {
  chain: Chain;
  address: string;
  created_at: Date;
  updated_at: Date;
}

/** At most one per chain, in the chains' order. */
export function payoutWallets(sql: Sql | TransactionSql, merchantId: string): Promise<PayoutWalletRow[]> {
  return sql<PayoutWalletRow[]>`
    select chain, address, created_at, updated_at from payout_wallets
    where merchant_id = ${merchantId} order by chain`;
}

/** Sets or replaces the chain's wallet; the caller has checked the code mailed for it. */
export async function linkPayoutWallet(
  tx: TransactionSql,
  wallet: { merchantId: string; chain: Chain; address: string },
): Promise<PayoutWalletRow> {
  const [row] = await tx<PayoutWalletRow[]>`
    insert into payout_wallets (merchant_id, chain, address)
    values (${wallet.merchantId}, ${wallet.chain}, ${wallet.address})
    on conflict (merchant_id, chain) do update set address = excluded.address, updated_at = now()
    returning chain, address, created_at, updated_at`;
  return row!;
}
