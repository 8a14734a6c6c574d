// The coins a transaction spends from its source (a deposit address or the vault). No Solana
// counterpart: a Solana transfer debits an account, while a Sui one consumes coin objects, which
// two transactions in flight at once must not share.
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { listOwnedCoins, type OwnedCoin } from "./owned-coins.js";

/**
 * Largest free coins first until they cover the amount, reserved in `busy` (shared with the gas
 * coins); waits while others hold what is missing.
 */
export async function pickSourceCoins(
  client: SuiGrpcClient,
  busy: Set<string>,
  owner: string,
  type: string,
  amount: bigint,
): Promise<OwnedCoin[]> {
  for (let wait = 0; ; wait++) {
    // With their BCS: the signer checks a sweep's coins against their contents.
    const coins = (await listOwnedCoins(client, owner, type, { bcs: true })).sort((a, b) =>
      b.balance > a.balance ? 1 : -1,
    );
    const picked = largestFirst(coins, busy, amount);
    if (picked) {
      // Taken before the next await: intents picking at the same moment get other coins.
      for (const coin of picked) busy.add(coin.objectId);
      return picked;
    }
    const total = coins.reduce((s, c) => s + c.balance, 0n);
    if (total < amount || wait >= 100) {
      throw new Error(`source ${owner} holds ${total} of ${type}, ${amount} needed`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The free coins, in the order given, until they cover `amount`; undefined when they cannot. */
function largestFirst(coins: OwnedCoin[], busy: Set<string>, amount: bigint): OwnedCoin[] | undefined {
  const picked: OwnedCoin[] = [];
  let sum = 0n;
  for (const coin of coins) {
    if (sum >= amount) break;
    if (busy.has(coin.objectId)) continue;
    picked.push(coin);
    sum += coin.balance;
  }
  return sum >= amount ? picked : undefined;
}
