import { createLogger } from "@gateway/logging";
import { DepositIndexIssuedError } from "@gateway/signer-client";
import { startTestSigner, type TestSigner, testDepositAddress } from "@gateway/signer-harness";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DepositAddressDeriver, depositAddressPool } from "./deposit-address-pool.js";
import { signerDepositAddresses } from "./signer-addresses.js";

let signer: TestSigner;
let db: TestDatabase;
const log = createLogger({ name: "pool-test", level: "silent" });

beforeAll(async () => {
  [signer, db] = await Promise.all([startTestSigner(), createTestDatabase()]);
});
afterAll(async () => {
  await Promise.all([signer?.close(), db?.drop()]);
});

/** The signer's deriver, counting its calls and the indices it was asked. */
function countingDeriver() {
  const real = signerDepositAddresses(signer.clients.api);
  const calls: bigint[][] = [];
  const deriver: DepositAddressDeriver = {
    derive(chain, mode, indices) {
      calls.push(indices);
      return real.derive(chain, mode, indices);
    },
  };
  return { deriver, calls };
}

const lastValue = async (sequence: string) =>
  (await db.sql<{ last: bigint }[]>`select last_value as last from ${db.sql(sequence)}`)[0]!.last;

describe("the deposit address pool", () => {
  it("serves a batch of takers with one reservation and one call to the signer", async () => {
    const { deriver, calls } = countingDeriver();
    const pool = depositAddressPool({ sql: db.sql, deriver, log, batch: 16 });
    const taken = [];
    for (let i = 0; i < 8; i++) taken.push(await pool.take("solana", "test"));
    // Half the batch used: the next take starts the refill in the background; none waits for it.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(16);
    for (const { index, address } of taken)
      expect(address).toBe(testDepositAddress("solana", "test", Number(index)));
    expect(new Set(taken.map((t) => t.address)).size).toBe(8);
    // Every index the pool holds or handed out came from the sequence.
    const highestTaken = Math.max(...taken.map((t) => Number(t.index)));
    expect(Number(await lastValue("deposit_index_solana_test"))).toBeGreaterThanOrEqual(highestTaken);
  });

  it("hands no address out twice to many takers at once, across refills", async () => {
    const { deriver, calls } = countingDeriver();
    const pool = depositAddressPool({ sql: db.sql, deriver, log, batch: 8 });
    const taken = await Promise.all(Array.from({ length: 100 }, () => pool.take("sui", "live")));
    expect(new Set(taken.map((t) => t.address)).size).toBe(100);
    expect(new Set(taken.map((t) => t.index)).size).toBe(100);
    for (const { index, address } of taken)
      expect(address).toBe(testDepositAddress("sui", "live", Number(index)));
    // 100 addresses from batches of 8 take 13 calls; a call per taker would be 100.
    expect(calls.length).toBeGreaterThanOrEqual(13);
    expect(calls.length).toBeLessThanOrEqual(14);
    // Chains and modes are branches of their own.
    const other = await pool.take("sui", "test");
    expect(other.address).toBe(testDepositAddress("sui", "test", Number(other.index)));
  });

  it("moves the sequence past what the signer handed out when a restore set it back", async () => {
    const { deriver } = countingDeriver();
    const first = depositAddressPool({ sql: db.sql, deriver, log, batch: 4 });
    const before = [];
    for (let i = 0; i < 6; i++) before.push(await first.take("solana", "live"));
    const highest = await lastValue("deposit_index_solana_live");
    // What a restore from an older backup does: the sequence goes back; the signer remembers.
    await db.sql`select setval('deposit_index_solana_live', 1, false)`;
    const { deriver: counted, calls } = countingDeriver();
    const afterRestore = depositAddressPool({ sql: db.sql, deriver: counted, log, batch: 4 });
    const after = await afterRestore.take("solana", "live");
    expect(before.map((t) => t.address)).not.toContain(after.address);
    expect(after.index).toBeGreaterThan(highest);
    // One refill found its indices handed out; the sequence moved past them and the next one took.
    expect(calls).toHaveLength(2);
    expect(await lastValue("deposit_index_solana_live")).toBeGreaterThanOrEqual(after.index);
  });

  it("gives an unused address back to the next taker", async () => {
    const { deriver } = countingDeriver();
    const pool = depositAddressPool({ sql: db.sql, deriver, log, batch: 4 });
    const unused = await pool.take("sui", "test");
    pool.giveBack("sui", "test", unused);
    expect(await pool.take("sui", "test")).toEqual(unused);
  });

  it("fails the takers of a failed refill, and the next take refills again", async () => {
    let failing = true;
    const { deriver: real } = countingDeriver();
    const deriver: DepositAddressDeriver = {
      async derive(chain, mode, indices) {
        if (failing) throw new Error("signer away");
        return real.derive(chain, mode, indices);
      },
    };
    const pool = depositAddressPool({ sql: db.sql, deriver, log, batch: 4 });
    const failures = await Promise.allSettled([pool.take("solana", "test"), pool.take("solana", "test")]);
    expect(failures.map((f) => f.status)).toEqual(["rejected", "rejected"]);
    failing = false;
    const taken = await pool.take("solana", "test");
    expect(taken.address).toBe(testDepositAddress("solana", "test", Number(taken.index)));
  });

  it("gives up when every index it reserves was handed out before", async () => {
    const deriver: DepositAddressDeriver = {
      async derive(_chain, _mode, indices) {
        return indices.map(() => ({ issued: new DepositIndexIssuedError(5) }));
      },
    };
    const pool = depositAddressPool({ sql: db.sql, deriver, log, batch: 2 });
    await expect(pool.take("sui", "live")).rejects.toThrow(
      /no new deposit index on sui live after 3 attempts/,
    );
  });

  it("refuses a batch size outside 1-1000", () => {
    const { deriver } = countingDeriver();
    expect(() => depositAddressPool({ sql: db.sql, deriver, log, batch: 0 })).toThrow(/1-1000/);
    expect(() => depositAddressPool({ sql: db.sql, deriver, log, batch: 1001 })).toThrow(/1-1000/);
  });
});
