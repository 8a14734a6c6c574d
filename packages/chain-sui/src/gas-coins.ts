// The gas wallet's coins as this process last knew them. A sponsored sweep needs one free coin
// that covers the gas budget; listing the whole wallet for each sweep (64 coins on the local
// network, as many as the operator splits it into) was the dearest call a Sui sweep made, for
// the full node and for us. A coin this process spends comes back from the execution's effects
// at its next version, so the list is read again only when nothing known is free, or after a
// rejection says that what we knew is out of date.
import { randomInt } from "node:crypto";
import type { OwnedCoin } from "./owned-coins.js";

export interface GasCoinsOptions {
  /** The wallet's coins as the full node lists them now. */
  list: (owner: string) => Promise<OwnedCoin[]>;
  /** A coin must cover the budget on its own. */
  budget: bigint;
  /** Objects an in-flight transaction of this process uses (shared with the source coins). */
  busy: Set<string>;
  /** How many times to look again, 100 ms apart, while every usable coin is busy. */
  waits?: number;
}

/** What a transaction's effects say of its gas coin afterwards. */
export interface GasCoinAfter {
  version: string;
  digest: string;
  /** Computation plus storage charged; the rebate is left out, so the balance kept is a floor. */
  charged: bigint;
}

export function createGasCoins(options: GasCoinsOptions) {
  const { budget, busy } = options;
  const waits = options.waits ?? 100;
  /**
   * Each gas wallet's coins and its listing in flight, by owner: a process that pays from two
   * wallets (a mode's each) neither mixes their coins nor hands one wallet's listing to the other.
   */
  const wallets = new Map<string, { known?: Map<string, OwnedCoin>; listing?: Promise<void> }>();
  // Picks go round the wallet from a random start: replicas sharing a gas wallet start apart.
  let next = randomInt(1 << 30);

  function walletOf(owner: string) {
    let wallet = wallets.get(owner);
    if (!wallet) {
      wallet = {};
      wallets.set(owner, wallet);
    }
    return wallet;
  }

  /** One listing of a wallet at a time; every pick waiting on it uses its answer. */
  function relist(owner: string): Promise<void> {
    const wallet = walletOf(owner);
    wallet.listing ??= options
      .list(owner)
      .then((coins) => {
        const fresh = new Map(coins.map((coin) => [coin.objectId, coin]));
        // A full node's list can trail the effects we have read: keep the later version.
        for (const [objectId, coin] of wallet.known ?? []) {
          const listed = fresh.get(objectId);
          if (listed && BigInt(listed.version) < BigInt(coin.version)) fresh.set(objectId, coin);
        }
        wallet.known = fresh;
      })
      .finally(() => {
        wallet.listing = undefined;
      });
    return wallet.listing;
  }

  function usableOf(known: Map<string, OwnedCoin> | undefined): OwnedCoin[] {
    return [...(known?.values() ?? [])].filter((coin) => coin.balance >= budget);
  }

  function takeFree(known: Map<string, OwnedCoin> | undefined): OwnedCoin | undefined {
    const usable = usableOf(known);
    for (let i = 0; i < usable.length; i++) {
      const coin = usable[(next + i) % usable.length]!;
      if (busy.has(coin.objectId)) continue;
      next = (next + i + 1) % usable.length;
      // Taken before the next await: picks at the same moment get other coins.
      busy.add(coin.objectId);
      return coin;
    }
    return undefined;
  }

  return {
    /** One free coin covering the budget, reserved in `busy`; waits while others hold them all. */
    async pick(gasOwner: string): Promise<OwnedCoin> {
      const wallet = walletOf(gasOwner);
      const known = takeFree(wallet.known);
      if (known) return known;
      for (let wait = 0; ; wait++) {
        await relist(gasOwner);
        const coin = takeFree(wallet.known);
        if (coin) return coin;
        if (usableOf(wallet.known).length === 0 || wait >= waits) {
          throw new Error(`gas wallet ${gasOwner} has no free coin of ${budget} MIST`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    /** The coin after a transaction of ours spent it as gas (from the execution's effects). */
    spent(objectId: string, after: GasCoinAfter): void {
      for (const { known } of wallets.values()) {
        const coin = known?.get(objectId);
        if (!coin) continue;
        known!.set(objectId, {
          objectId,
          version: after.version,
          digest: after.digest,
          balance: coin.balance - after.charged,
        });
      }
    },

    /** Coins whose version we no longer know (sent without reading the effects, or held elsewhere). */
    forget(objectIds: Iterable<string>): void {
      const ids = [...objectIds];
      for (const { known } of wallets.values()) for (const objectId of ids) known?.delete(objectId);
    },

    /** A rejection said an input moved on: read the wallets again before the next pick. */
    forgetAll(): void {
      for (const wallet of wallets.values()) wallet.known = undefined;
    },
  };
}

export type GasCoins = ReturnType<typeof createGasCoins>;
