import { randomUUID } from "node:crypto";
import { newId } from "@gateway/db";
import { createTestDatabase, type TestDatabase, waitFor } from "@gateway/testkit";
import { Keypair } from "@solana/web3.js";
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
  mode?: "live" | "test";
  status?: string;
  expiresInMs?: number;
  chain?: "solana" | "sui";
  active?: boolean;
}): Promise<string> {
  const id = randomUUID();
  const mode = options.mode ?? "live";
  const address = Keypair.generate().publicKey.toBase58();
  const expiresAt = new Date(Date.now() + (options.expiresInMs ?? 600_000));
  await db.sql`insert into payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
    values (${id}, ${merchantId}, ${mode}, 1000, 'USD', 10, ${options.status ?? "pending"}, '{}'::jsonb, ${expiresAt})`;
  await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due, active)
    values (${newId("dw")}, ${id}, ${mode}, ${options.chain ?? "solana"}, 'USDC', ${index++}, ${address},
      10000000, ${options.active ?? true})`;
  return address;
}

describe("open addresses", () => {
  it("holds live Solana wallets of open payments and recently expired ones, nothing else", async () => {
    const pending = await wallet({});
    const confirming = await wallet({ status: "confirming" });
    const recentlyExpired = await wallet({ status: "expired", expiresInMs: -60_000 });
    const longExpired = await wallet({ status: "expired", expiresInMs: -7_200_000 });
    const completedLongAgo = await wallet({ status: "completed", expiresInMs: -7_200_000 });
    const testMode = await wallet({ mode: "test" });
    const abandoned = await wallet({ active: false });
    const sui = await wallet({ chain: "sui" });
    const open = createOpenAddresses({ sql: db.sql, lateWindowMs: 3_600_000, refreshMs: 50 });
    await open.refresh();
    const addresses = new Set(open.list().map((entry) => entry.address));
    expect(addresses).toEqual(new Set([pending, confirming, recentlyExpired]));
    for (const excluded of [longExpired, completedLongAgo, testMode, abandoned, sui]) {
      expect(open.get(excluded)).toBeUndefined();
    }
    expect(open.get(pending)).toMatchObject({ coin: "USDC" });
  });

  it("picks up new wallets incrementally and bumps its version", async () => {
    const open = createOpenAddresses({ sql: db.sql, lateWindowMs: 3_600_000, refreshMs: 50 });
    await open.refresh();
    const version = open.version();
    const size = open.size();
    open.start();
    const added = await wallet({});
    await waitFor(() => open.get(added) !== undefined, { what: "new wallet picked up" });
    expect(open.size()).toBe(size + 1);
    expect(open.version()).toBeGreaterThan(version);
    await open.stop();
  });
});
