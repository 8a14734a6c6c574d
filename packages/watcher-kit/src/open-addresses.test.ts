import { randomBytes, randomUUID } from "node:crypto";
import type { Chain } from "@gateway/contracts";
import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAddresses, type OpenAddresses } from "./open-addresses.js";

let db: TestDatabase;
const merchantId = newId("mer");
let index = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await db.drop();
});

/** When the last wallet insert was sent: latencies count from there, the insert's own trip included. */
let sentAt = 0;

async function wallet(options: {
  chain: Chain;
  mode?: "live" | "test";
  status?: string;
  expiresInMs?: number;
  active?: boolean;
  coin?: string;
}): Promise<string> {
  const id = randomUUID();
  const mode = options.mode ?? "live";
  const address = randomBytes(32).toString("hex");
  const expiresAt = new Date(Date.now() + (options.expiresInMs ?? 600_000));
  await db.sql`insert into payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
    values (${id}, ${merchantId}, ${mode}, 1000, 'USD', 10, ${options.status ?? "pending"}, '{}'::jsonb, ${expiresAt})`;
  sentAt = performance.now();
  await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due, active)
    values (${newId("dw")}, ${id}, ${mode}, ${options.chain}, ${options.coin ?? "USDC"}, ${index++}, ${address},
      10000000, ${options.active ?? true})`;
  return address;
}

/** Closes every wallet, so that the next test starts from an empty set. */
async function closeAll() {
  await db.sql`update deposit_wallets set active = false where active`;
}

/** Resolves once the LISTEN for `chain` is on the server (a backend other than `not`, if given). */
async function listening(chain: Chain, not?: number): Promise<number> {
  return waitFor(
    async () => {
      const [row] = await db.sql<{ pid: number }[]>`select pid from pg_stat_activity
        where datname = current_database() and query ilike ${`listen %deposit_wallets_${chain}%`}
          and pid is distinct from ${not ?? null}`;
      return row?.pid;
    },
    { what: `LISTEN for ${chain}`, timeoutMs: 5_000 },
  );
}

/** Milliseconds until the set holds `address`; fails past `withinMs`. Polled every 2 ms. */
async function seenAfter(open: OpenAddresses, address: string, from: number, withinMs: number) {
  await waitFor(() => open.get(address) !== undefined, {
    timeoutMs: withinMs,
    intervalMs: 2,
    what: `${address} in the open set within ${withinMs} ms`,
  });
  return performance.now() - from;
}

describe.each<[Chain, Chain]>([
  ["solana", "sui"],
  ["sui", "solana"],
])("open %s addresses", (chain, other) => {
  it("holds live wallets of open payments and recently expired ones, nothing else", async () => {
    const pending = await wallet({ chain, coin: "USDT" });
    const confirming = await wallet({ chain, status: "confirming" });
    const recentlyExpired = await wallet({ chain, status: "expired", expiresInMs: -60_000 });
    const longExpired = await wallet({ chain, status: "expired", expiresInMs: -7_200_000 });
    const completedLongAgo = await wallet({ chain, status: "completed", expiresInMs: -7_200_000 });
    const testMode = await wallet({ chain, mode: "test" });
    const abandoned = await wallet({ chain, active: false });
    const otherChain = await wallet({ chain: other });
    const open = createOpenAddresses({ sql: db.sql, chain, lateWindowMs: 3_600_000, fullReloadMs: 30_000 });
    await open.refresh();
    expect(open.list().map((entry) => entry.address)).toEqual([pending, confirming, recentlyExpired]);
    for (const excluded of [longExpired, completedLongAgo, testMode, abandoned, otherChain]) {
      expect(open.get(excluded)).toBeUndefined();
    }
    expect(open.get(pending)).toEqual({ address: pending, coin: "USDT" });
    expect(open.size()).toBe(3);
    const [clock] = await db.sql<{ now: Date }[]>`select now() as now`;
    expect(Math.abs(open.asOf() - clock!.now.getTime())).toBeLessThan(5_000);
    await db.sql`update deposit_wallets set active = false where address in ${db.sql([pending, confirming, recentlyExpired, otherChain])}`;
  });

  it("picks up new wallets incrementally, keeps entries across reloads and drops closed ones", async () => {
    const open = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 300,
      refreshMs: 50,
    });
    const first = await wallet({ chain });
    await open.refresh();
    const entry = open.get(first);
    const version = open.version();
    open.start();
    const added = await wallet({ chain });
    await waitFor(() => open.get(added) !== undefined, { what: "new wallet picked up" });
    expect(open.list().at(-1)?.address).toBe(added);
    expect(open.version()).toBeGreaterThan(version);

    await db.sql`update deposit_wallets set active = false where address = ${added}`;
    await waitFor(() => open.get(added) === undefined, { what: "closed wallet dropped on a full reload" });
    expect(open.get(first)).toBe(entry);
    await open.stop();
  });

  it("sees a new wallet at once, long before the next poll, through the notification", async () => {
    const open = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 600_000,
      refreshMs: 60_000,
    });
    await open.refresh();
    open.start();
    try {
      await listening(chain);
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const address = await wallet({ chain });
        latencies.push(await seenAfter(open, address, sentAt, 300));
      }
      console.log(`${chain}: wallet insert → open set, ms: ${latencies.map((l) => l.toFixed(1)).join(", ")}`);
      // Another chain's wallet is not this set's business.
      const foreign = await wallet({ chain: other });
      await new Promise((r) => setTimeout(r, 100));
      expect(open.get(foreign)).toBeUndefined();
    } finally {
      await open.stop();
      await closeAll();
    }
  });

  it("sees a wallet made active again at once, though it is older than any incremental load", async () => {
    // Every refresh is a full one; only the notification can bring the wallet back early.
    const open = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 0,
      refreshMs: 60_000,
    });
    const address = await wallet({ chain });
    await db.sql`update deposit_wallets set active = false where address = ${address}`;
    await open.refresh();
    expect(open.get(address)).toBeUndefined();
    open.start();
    try {
      await listening(chain);
      const from = performance.now();
      await db.sql`update deposit_wallets set active = true where address = ${address}`;
      await seenAfter(open, address, from, 300);
    } finally {
      await open.stop();
      await closeAll();
    }
  });

  it("coalesces a burst: every wallet seen at once, with far fewer loads than wallets", async () => {
    const open = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 600_000,
      refreshMs: 60_000,
    });
    await open.refresh();
    open.start();
    try {
      await listening(chain);
      await waitFor(() => open.loads() >= 2, { what: "the refresh after LISTEN" });
      const loadsBefore = open.loads();
      const burst = 100;
      // Each wallet in its own transaction, as the API makes them, five at a time (the pool).
      const addresses = await Promise.all(Array.from({ length: burst }, () => wallet({ chain })));
      const lastCommit = performance.now();
      await waitFor(() => addresses.every((a) => open.get(a) !== undefined), {
        timeoutMs: 300,
        intervalMs: 2,
        what: "the whole burst in the open set",
      });
      const loads = open.loads() - loadsBefore;
      console.log(
        `${chain}: burst of ${burst} wallets in ${loads} loads, all seen ${(performance.now() - lastCommit).toFixed(1)} ms after the last commit`,
      );
      expect(loads).toBeLessThan(burst / 2);
    } finally {
      await open.stop();
      await closeAll();
    }
  });

  it("listens again after its connection drops, and polls when notifications do not come", async () => {
    const open = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 600_000,
      refreshMs: 60_000,
    });
    await open.refresh();
    open.start();
    try {
      const pid = await listening(chain);
      await db.sql`select pg_terminate_backend(${pid})`;
      // Inserted while LISTEN may be down: the refresh on listening again finds it.
      const during = await wallet({ chain });
      await listening(chain, pid);
      await seenAfter(open, during, performance.now(), 1_000);
      const after = await wallet({ chain });
      await seenAfter(open, after, performance.now(), 300);
    } finally {
      await open.stop();
    }

    // No notification at all (the trigger off, as behind a pooler that drops LISTEN): polling.
    const polling = createOpenAddresses({
      sql: db.sql,
      chain,
      lateWindowMs: 3_600_000,
      fullReloadMs: 600_000,
      refreshMs: 100,
    });
    await polling.refresh();
    await db.sql`alter table deposit_wallets disable trigger deposit_wallets_notify_insert`;
    polling.start();
    try {
      const silent = await wallet({ chain });
      await waitFor(() => polling.get(silent) !== undefined, { what: "a wallet found by polling" });
    } finally {
      await db.sql`alter table deposit_wallets enable trigger deposit_wallets_notify_insert`;
      await polling.stop();
      await closeAll();
    }
  });
});
