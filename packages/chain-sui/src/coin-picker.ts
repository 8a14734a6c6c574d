// The coins each Sui transaction takes, reserved while it is in flight: its source coins and the
// gas coin that sponsors it (gas-coins.ts). chain-solana's nonce-pool.ts leases nonce accounts in
// PostgreSQL; a Sui coin is an owned object, so two transactions at once must not share one.
import type { SuiClientTypes } from "@mysten/sui/client";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { createGasCoins, type GasCoins } from "./gas-coins.js";
import { listOwnedCoins, type OwnedCoin } from "./owned-coins.js";

export interface CoinPickerOptions {
  client: SuiGrpcClient;
  /** The gas wallet's coin type, asked each time the wallet is listed. */
  gasCoinType: () => string;
  /** A gas coin must cover the budget on its own. */
  gasBudget: bigint;
}

export class CoinPicker {
  readonly #client: SuiGrpcClient;
  /** Objects an in-flight transaction of this process uses; other intents pick other coins. */
  readonly #busy = new Set<string>();
  /** The gas wallet's coins, known from the effects of what this process spends. */
  readonly #gas: GasCoins;

  constructor(options: CoinPickerOptions) {
    this.#client = options.client;
    this.#gas = createGasCoins({
      list: (owner) => listOwnedCoins(options.client, owner, options.gasCoinType()),
      budget: options.gasBudget,
      busy: this.#busy,
    });
  }

  /**
   * Largest free coins first until they cover the amount, reserved before the next await so that
   * intents picking at the same moment get other coins; waits while others hold what is missing.
   */
  async source(owner: string, type: string, amount: bigint): Promise<OwnedCoin[]> {
    for (let wait = 0; ; wait++) {
      // With their BCS: the signer checks a sweep's coins against their contents.
      const coins = (await listOwnedCoins(this.#client, owner, type, { bcs: true })).sort((a, b) =>
        b.balance > a.balance ? 1 : -1,
      );
      const picked = this.#covering(coins, amount);
      if (picked) {
        this.reserve(picked.map((coin) => coin.objectId));
        return picked;
      }
      const total = coins.reduce((s, c) => s + c.balance, 0n);
      if (total < amount || wait >= 100) {
        throw new Error(`source ${owner} holds ${total} of ${type}, ${amount} needed`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One free gas coin covering the budget, reserved; waits while others hold them all. */
  gas(gasOwner: string): Promise<OwnedCoin> {
    return this.#gas.pick(gasOwner);
  }

  reserve(objectIds: Iterable<string>): void {
    for (const objectId of objectIds) this.#busy.add(objectId);
  }

  release(objectIds: Iterable<string>): void {
    for (const objectId of objectIds) this.#busy.delete(objectId);
  }

  /**
   * The signer bound a coin version to another replica's intent: that coin is skipped for a
   * while, and the gas wallet read again, as what we know of it may be behind.
   */
  heldElsewhere(objectId: string | undefined, ms: number): void {
    if (objectId) {
      this.#busy.add(objectId);
      setTimeout(() => this.#busy.delete(objectId), ms).unref();
    }
    this.#gas.forgetAll();
  }

  /**
   * The effects name the gas coin's next version, which the next pick can then use without
   * listing the gas wallet; when they do not, the coin is forgotten.
   */
  executed(inputIds: string[], effects: SuiClientTypes.TransactionEffects | undefined): void {
    const gasObject = effects?.gasObject;
    if (effects && gasObject?.outputVersion && gasObject.outputDigest) {
      const used = effects.gasUsed;
      this.#gas.spent(normalizeSuiAddress(gasObject.objectId), {
        version: gasObject.outputVersion,
        digest: gasObject.outputDigest,
        charged: BigInt(used.computationCost ?? 0) + BigInt(used.storageCost ?? 0),
      });
    } else this.#gas.forget(inputIds);
  }

  /** Rejected: an input moved on (read the wallet again), or we cannot tell what happened. */
  rejected(inputIds: string[], stale: boolean): void {
    if (stale) this.#gas.forgetAll();
    else this.#gas.forget(inputIds);
  }

  /** Sent before (by this process or another): its gas coin's version is not ours to know. */
  sentElsewhere(inputIds: string[]): void {
    this.#gas.forget(inputIds);
  }

  /** The free coins, in the order given, until they cover `amount`; undefined when they cannot. */
  #covering(coins: OwnedCoin[], amount: bigint): OwnedCoin[] | undefined {
    const picked: OwnedCoin[] = [];
    let sum = 0n;
    for (const coin of coins) {
      if (sum >= amount) break;
      if (this.#busy.has(coin.objectId)) continue;
      picked.push(coin);
      sum += coin.balance;
    }
    return sum >= amount ? picked : undefined;
  }
}
