// Exact deposits in a Sui transaction, read from its balance changes (as chain-solana's
// watcher/deposits-in-transaction.ts reads token and lamport balances), per address and coin type.
import type { DepositReport } from "@gateway/contracts";
import type { Coin } from "@gateway/domain";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";

export interface CheckpointTransaction {
  digest: string;
  sender?: string;
  balanceChanges: { address: string; coinType: string; amount: string }[];
}

/** Coin type (any spelling) → the coin it is; types not listed are ignored. */
export type CoinTypes = Record<string, Coin>;

export function normalizeCoinTypes(types: Partial<Record<Coin, string>>): CoinTypes {
  const out: CoinTypes = {};
  for (const [coin, type] of Object.entries(types) as [Coin, string | undefined][]) {
    if (type) out[normalizeStructTag(type)] = coin;
  }
  return out;
}

/**
 * The deposits one transaction makes to watched addresses: every positive balance change of a
 * known coin type. The sender is the address whose balance of that coin fell most in the same
 * transaction (who actually paid), else the transaction's sender. `index` is the position of the
 * balance change, so `sui:<digest>:<index>` names the transfer for good.
 */
export function depositsOf(
  tx: CheckpointTransaction,
  coinTypes: CoinTypes,
  watched: (address: string) => boolean,
): DepositReport[] {
  const reports: DepositReport[] = [];
  tx.balanceChanges.forEach((change, index) => {
    const amount = BigInt(change.amount);
    if (amount <= 0n) return;
    const address = normalizeSuiAddress(change.address);
    if (!watched(address)) return;
    const coinType = normalizeStructTag(change.coinType);
    const coin = coinTypes[coinType];
    if (!coin) return;
    let sender = tx.sender ? normalizeSuiAddress(tx.sender) : "";
    let largest = 0n;
    for (const other of tx.balanceChanges) {
      const delta = BigInt(other.amount);
      if (delta < largest && normalizeStructTag(other.coinType) === coinType) {
        largest = delta;
        sender = normalizeSuiAddress(other.address);
      }
    }
    reports.push({
      chain: "sui",
      address,
      transfer_id: `sui:${tx.digest}:${index}`,
      coin,
      amount: amount.toString(),
      sender,
      stage: "final",
    });
  });
  return reports;
}
