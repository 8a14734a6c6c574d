// Sui customers for a load that runs for minutes: a Sui coin is an object with a version, so each
// prepared wallet of the customer pool pays once, and preparing them all before a 30-minute soak
// would take minutes of faucet work. This payer keeps a reserve of prepared wallets instead,
// topped up in the background a chunk at a time while the load runs.
import type { SuiCustomerPool } from "@gateway/sui-localnet";

/** What the payer needs of the customer pool (a fake in the unit test). */
export type WalletPool = Pick<SuiCustomerPool, "prepare" | "ready" | "pay">;

export interface SuiPayer {
  /** Pays from a prepared wallet, waiting for the refill in flight when none is ready; resolves with the digest once executed. */
  pay(to: string, baseUnits: bigint): Promise<string>;
  /** Wallets funded and not yet used. */
  readonly ready: number;
  /** Keeps at least this many wallets prepared from now on. */
  setReserve(count: number): void;
  /** Resolves once the reserve is prepared (before a phase of load); rejects if a refill fails. */
  filled(): Promise<void>;
  /** Pays that found no wallet ready and waited: the customers falling behind the load. */
  readonly waits: number;
  /** Stops refilling; resolves once the refill in flight, if any, has ended. */
  close(): Promise<void>;
}

/** The pool funds 8 wallets at a time; a chunk of at least that keeps all 8 busy. */
const MIN_CHUNK = 8;
/** A pay that waits for a refill waits for its whole chunk: this bounds the wait. */
const MAX_CHUNK = 32;

export function createSuiPayer(pool: WalletPool, reserve: number): SuiPayer {
  let target = reserve;
  let refill: Promise<void> | undefined;
  let closed = false;
  let waits = 0;

  /** Starts a refill when below the reserve and none is in flight; returns the one in flight. */
  function topUp(): Promise<void> | undefined {
    if (refill || closed || pool.ready >= target) return refill;
    const count = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, target - pool.ready));
    const current = pool.prepare(count).finally(() => {
      refill = undefined;
    });
    refill = current;
    // The next chunk follows while still below the reserve. A failure is reported to the pays
    // waiting on `current` (they hold it); handled here too, so it is never an unhandled
    // rejection, and the next pay that takes or wants a wallet starts another refill.
    current.then(
      () => {
        topUp();
      },
      () => {},
    );
    return current;
  }

  topUp();
  return {
    async pay(to, baseUnits) {
      let waited = false;
      while (pool.ready === 0) {
        if (!waited) waits++;
        waited = true;
        const inFlight = topUp();
        if (!inFlight) throw new Error(closed ? "the Sui payer is closed" : "no Sui wallet reserve is set");
        await inFlight;
      }
      // The pool takes the wallet synchronously, before its first await: checked and taken in
      // one turn, so concurrent pays never count on the same wallet.
      const paying = pool.pay(to, baseUnits);
      topUp();
      return paying;
    },
    setReserve(count) {
      target = count;
      topUp();
    },
    async filled() {
      while (pool.ready < target) {
        const inFlight = topUp();
        if (!inFlight) return;
        await inFlight;
      }
    },
    get ready() {
      return pool.ready;
    },
    get waits() {
      return waits;
    },
    async close() {
      closed = true;
      await refill?.catch(() => {});
    },
  };
}
