import { randomBytes, randomUUID } from "node:crypto";
import type { Chain } from "@gateway/contracts";
import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAddresses } from "./open-addresses.js";

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
  await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due, active)
    values (${newId("dw")}, ${id}, ${mode}, ${options.chain}, ${options.coin ?? "USDC"}, ${index++}, ${address},
      10000000, ${options.active ?? true})`;
  return address;
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
});
