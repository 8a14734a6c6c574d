// The gas wallet's coins as this process last knew them: next versions read from the execution's
// effects, the wallet listed again only when nothing known is free (docs/sui.md). The coin picker
// (coin-picker.ts) takes its gas coins here.
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

export interface GasCoins {
  /** One free coin covering the budget, reserved in `busy`; waits while others hold them all. */
  pick(gasOwner: string): Promise<OwnedCoin>;
  /** The coin after a transaction of ours spent it as gas (from the execution's effects). */
  spent(objectId: string, after: GasCoinAfter): void;
  /** Coins whose version we no longer know (sent without reading the effects, or held elsewhere). */
  forget(objectIds: Iterable<string>): void;
  /** A rejection said an input moved on: read the wallets again before the next pick. */
  forgetAll(): void;
}

export function createGasCoins(options: GasCoinsOptions): GasCoins {
  return new Picker(options);
}

interface Wallet {
  known?: Map<string, OwnedCoin>;
  listing?: Promise<void>;
}

class Picker implements GasCoins {
  readonly #o: GasCoinsOptions;
  readonly #waits: number;
  /**
   * Each gas wallet's coins and its listing in flight, by owner: a process that pays from two
   * wallets (a mode's each) neither mixes their coins nor hands one wallet's listing to the other.
   */
  readonly #wallets = new Map<string, Wallet>();
  // Picks go round the wallet from a random start: replicas sharing a gas wallet start apart.
  #next = randomInt(1 << 30);

  constructor(options: GasCoinsOptions) {
    this.#o = options;
    this.#waits = options.waits ?? 100;
  }

  async pick(gasOwner: string): Promise<OwnedCoin> {
    const wallet = this.#walletOf(gasOwner);
    const known = this.#takeFree(wallet.known);
    if (known) return known;
    for (let wait = 0; ; wait++) {
      await this.#relist(gasOwner);
      const coin = this.#takeFree(wallet.known);
      if (coin) return coin;
      if (this.#usableOf(wallet.known).length === 0 || wait >= this.#waits) {
        throw new Error(`gas wallet ${gasOwner} has no free coin of ${this.#o.budget} MIST`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  spent(objectId: string, after: GasCoinAfter): void {
    for (const { known } of this.#wallets.values()) {
      const coin = known?.get(objectId);
      if (!coin) continue;
      known!.set(objectId, {
        objectId,
        version: after.version,
        digest: after.digest,
        balance: coin.balance - after.charged,
      });
    }
  }

  forget(objectIds: Iterable<string>): void {
    const ids = [...objectIds];
    for (const { known } of this.#wallets.values()) for (const objectId of ids) known?.delete(objectId);
  }

  forgetAll(): void {
    for (const wallet of this.#wallets.values()) wallet.known = undefined;
  }

  #walletOf(owner: string): Wallet {
    let wallet = this.#wallets.get(owner);
    if (!wallet) {
      wallet = {};
      this.#wallets.set(owner, wallet);
    }
    return wallet;
  }

  /** One listing of a wallet at a time; every pick waiting on it uses its answer. */
  #relist(owner: string): Promise<void> {
    const wallet = this.#walletOf(owner);
    wallet.listing ??= this.#o
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

  #usableOf(known: Map<string, OwnedCoin> | undefined): OwnedCoin[] {
    return [...(known?.values() ?? [])].filter((coin) => coin.balance >= this.#o.budget);
  }

  #takeFree(known: Map<string, OwnedCoin> | undefined): OwnedCoin | undefined {
    const usable = this.#usableOf(known);
    for (let i = 0; i < usable.length; i++) {
      const coin = usable[(this.#next + i) % usable.length]!;
      if (this.#o.busy.has(coin.objectId)) continue;
      this.#next = (this.#next + i + 1) % usable.length;
      // Taken before the next await: picks at the same moment get other coins.
      this.#o.busy.add(coin.objectId);
      return coin;
    }
    return undefined;
  }
}
