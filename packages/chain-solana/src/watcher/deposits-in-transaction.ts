// Exact deposits in a Solana transaction, read from its metadata: raw token amounts from
// pre/postTokenBalances and lamports from pre/postBalances, per deposit address and coin.
import type { Coin } from "@gateway/domain";
import type { VersionedTransactionResponse } from "@solana/web3.js";

export interface WatchedAddress {
  address: string;
  coin: Coin;
}

export interface FoundDeposit {
  address: string;
  coin: Coin;
  amount: bigint;
  sender: string;
  /** The top-level instruction that moved the funds in: part of the transfer id. */
  instructionIndex: number;
}

export interface DepositLookup {
  watched(address: string): WatchedAddress | undefined;
  /** Mint address → coin, for the stablecoins we accept. */
  coinOfMint(mint: string): Coin | undefined;
}

interface Delta {
  owner: string;
  accountIndex: number;
  amount: bigint;
}

function instructionTouching(tx: VersionedTransactionResponse, accountIndex: number): number {
  const index = tx.transaction.message.compiledInstructions.findIndex((ix) =>
    ix.accountKeyIndexes.includes(accountIndex),
  );
  return Math.max(index, 0);
}

/** Balance increases of watched addresses in the watched coin; nothing for a failed transaction. */
export function depositsInTransaction(
  tx: VersionedTransactionResponse,
  lookup: DepositLookup,
): FoundDeposit[] {
  const meta = tx.meta;
  if (!meta || meta.err) return [];
  // Balances and token accountIndex cover every account the transaction loaded: the message's own
  // keys, then those its address lookup tables brought (writable, then read-only). A deposit
  // address reached through a lookup table (batch payouts use them) is otherwise never seen.
  const loaded = meta.loadedAddresses;
  const keys = [
    ...tx.transaction.message.staticAccountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? []),
  ].map((key) => key.toBase58());
  const feePayer = keys[0] ?? "";
  const found: FoundDeposit[] = [];

  // Tokens: one delta per token account, grouped by mint.
  const byMint = new Map<string, Map<number, Delta>>();
  const add = (entries: typeof meta.preTokenBalances, sign: 1n | -1n) => {
    for (const entry of entries ?? []) {
      if (!entry.owner) continue;
      const accounts = byMint.get(entry.mint) ?? new Map<number, Delta>();
      byMint.set(entry.mint, accounts);
      const delta = accounts.get(entry.accountIndex) ?? {
        owner: entry.owner,
        accountIndex: entry.accountIndex,
        amount: 0n,
      };
      delta.amount += sign * BigInt(entry.uiTokenAmount.amount);
      accounts.set(entry.accountIndex, delta);
    }
  };
  add(meta.preTokenBalances, -1n);
  add(meta.postTokenBalances, 1n);
  for (const [mint, accounts] of byMint) {
    const coin = lookup.coinOfMint(mint);
    if (!coin) continue;
    const deltas = [...accounts.values()];
    // The sender is the owner whose balance fell the most; a mint has none, so the fee payer.
    const sender = deltas.reduce<Delta | undefined>(
      (low, d) => (d.amount < 0n && (!low || d.amount < low.amount) ? d : low),
      undefined,
    );
    for (const delta of deltas) {
      if (delta.amount <= 0n) continue;
      const watched = lookup.watched(delta.owner);
      if (!watched || watched.coin !== coin) continue;
      found.push({
        address: delta.owner,
        coin,
        amount: delta.amount,
        sender: sender?.owner ?? feePayer,
        instructionIndex: instructionTouching(tx, delta.accountIndex),
      });
    }
  }

  // SOL: lamport changes of the watched addresses themselves.
  const lamports = keys.map((_, i) => BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0));
  keys.forEach((key, i) => {
    const delta = lamports[i]!;
    if (delta <= 0n) return;
    const watched = lookup.watched(key);
    if (watched?.coin !== "SOL") return;
    let senderIndex = -1;
    lamports.forEach((d, j) => {
      if (j !== i && d < 0n && (senderIndex < 0 || d < lamports[senderIndex]!)) senderIndex = j;
    });
    found.push({
      address: key,
      coin: "SOL",
      amount: delta,
      sender: keys[senderIndex] ?? feePayer,
      instructionIndex: instructionTouching(tx, i),
    });
  });
  return found;
}
