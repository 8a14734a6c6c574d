import { describe, expect, it } from "vitest";
import { createSuiPayer, type WalletPool } from "./sui-payer.js";

/** A pool whose funding the test releases by hand: each prepare() waits for `fund()`. */
function fakePool() {
  let wallets = 0;
  let paid = 0;
  const asked: number[] = [];
  const pending: { count: number; resolve(): void; reject(err: Error): void }[] = [];
  const pool: WalletPool = {
    prepare(count) {
      asked.push(count);
      return new Promise<void>((resolve, reject) => pending.push({ count, resolve, reject }));
    },
    get ready() {
      return wallets;
    },
    async pay(to) {
      if (wallets === 0) throw new Error("no prepared Sui wallet left");
      wallets--;
      paid++;
      return `digest-${paid}-${to}`;
    },
  };
  return {
    pool,
    asked,
    get paid() {
      return paid;
    },
    get refilling() {
      return pending.length;
    },
    /** Funds the oldest prepare() in flight. */
    fund() {
      const next = pending.shift()!;
      wallets += next.count;
      next.resolve();
    },
    fail(message: string) {
      pending.shift()!.reject(new Error(message));
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe("the soak's Sui payer", () => {
  it("fills its reserve, then refills in the background as wallets are used", async () => {
    const fake = fakePool();
    const payer = createSuiPayer(fake.pool, 20);
    const filled = payer.filled();
    // Chunks of at most 32 and at least 8 (the pool funds 8 at a time): 20 in one chunk.
    expect(fake.asked).toEqual([20]);
    fake.fund();
    await filled;
    expect(fake.pool.ready).toBe(20);

    await payer.pay("a", 1n);
    expect(fake.asked).toEqual([20, 8]);
    // One refill at a time: more pays do not start another while one is in flight.
    await payer.pay("b", 1n);
    expect(fake.refilling).toBe(1);
    fake.fund();
    await settle();
    expect(fake.pool.ready).toBe(26);
    expect(payer.waits).toBe(0);
  });

  it("a pay finding no wallet ready waits for the refill in flight", async () => {
    const fake = fakePool();
    const payer = createSuiPayer(fake.pool, 8);
    const first = payer.pay("a", 1n);
    const second = payer.pay("b", 1n);
    await settle();
    expect(fake.paid).toBe(0);
    expect(fake.asked).toEqual([8]);
    fake.fund();
    expect(await first).toMatch(/^digest-/);
    expect(await second).toMatch(/^digest-/);
    expect(payer.waits).toBe(2);
  });

  it("a failed refill fails the pays waiting on it, and the next pay tries again", async () => {
    const fake = fakePool();
    const payer = createSuiPayer(fake.pool, 8);
    const waiting = payer.pay("a", 1n);
    fake.fail("faucet refused 0.05 SUI: 500");
    await expect(waiting).rejects.toThrow(/faucet refused/);
    expect(fake.refilling).toBe(0);

    const retried = payer.pay("b", 1n);
    await settle();
    expect(fake.asked).toEqual([8, 8]);
    fake.fund();
    expect(await retried).toMatch(/^digest-/);
  });

  it("a failed refill with nobody waiting is not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const fake = fakePool();
      createSuiPayer(fake.pool, 8).setReserve(16);
      fake.fail("faucet down");
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("refuses to pay once closed and nothing is ready", async () => {
    const fake = fakePool();
    const payer = createSuiPayer(fake.pool, 8);
    const closing = payer.close();
    fake.fail("stopped");
    await closing;
    await expect(payer.pay("a", 1n)).rejects.toThrow(/closed/);
  });
});
