import { randomUUID } from "node:crypto";
import { type Bus, connectBus } from "@gateway/bus";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES } from "@gateway/domain";
import { createLogger } from "@gateway/logging";
import { insertPayment } from "@gateway/payments";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSuiWatcher } from "./watcher.js";

const log = createLogger({ name: "watcher-sui-test", level: "silent" });
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let net: SuiLocalnet;
let client: SuiGrpcClient;
const merchantId = newId("mer");

beforeAll(async () => {
  [db, testBus, net] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 }),
  ]);
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await bus?.close();
  await testBus?.cleanup();
  await net?.close();
  await db?.drop();
});

let nextIndex = 0;
/** A live payment with an open Sui deposit address (an address nobody holds the key of, here). */
async function openAddress(mode: "live" | "test" = "live") {
  const state = initialPaymentState({
    id: randomUUID(),
    mode,
    currency: "USD",
    amount: 1250n,
    fee: computeFee(1250n, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  const address = new Ed25519Keypair().toSuiAddress();
  await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
    values (${newId("dw")}, ${state.id}, ${mode}, 'sui', 'USDC', ${nextIndex++}, ${address}, 12500000)`;
  return address;
}

const coinTypes = () => ({ SUI: "0x2::sui::SUI", USDC: net.coinType("USDC"), USDT: net.coinType("USDT") });

async function depositRows(address: string) {
  return db.sql<{ id: string; payload: { amount: string; coin: string; sender: string; stage: string } }[]>`
    select id, payload from outbox where subject = ${bus.topology.subjects.deposit("sui")}
    and payload->>'address' = ${address} and payload->>'stage' = 'final' order by seq`;
}

describe("sui watcher", () => {
  it("reports transfers of known coins to open live addresses once, in the transaction with the cursor", async () => {
    const watcher = await startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes: coinTypes(),
      relay: false,
    });
    try {
      const address = await openAddress();
      const testAddress = await openAddress("test");
      const grant = await net.fund(address, "USDC", 12_500_000n);
      await net.fund(address, "SUI", 5n);
      await net.fund(testAddress, "USDC", 1n);
      // A coin type nobody configured is ignored.
      const other = await net.fund(address, "USDT", 3n);
      await waitFor(async () => (await depositRows(address)).length === 3, { what: "three deposits" });
      const rows = await depositRows(address);
      expect(rows[0]).toMatchObject({
        id: `sui:${grant.digest}:${rows[0]!.id.split(":")[2]}`,
        payload: { amount: "12500000", coin: "USDC", sender: net.faucetAddress, stage: "final" },
      });
      expect(rows.map((r) => r.payload.coin).sort()).toEqual(["SUI", "USDC", "USDT"]);
      expect(rows.some((r) => r.id.includes(other.digest))).toBe(true);
      expect(await depositRows(testAddress)).toEqual([]);
      expect(watcher.status().openAddresses).toBe(1);
    } finally {
      await watcher.stop();
    }
  });

  it("reports nothing while the chain preflight fails, and everything once it passes again", async () => {
    let crediting = false;
    const watcher = await startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes: coinTypes(),
      relay: false,
      crediting: () => crediting,
    });
    try {
      const address = await openAddress();
      await net.fund(address, "USDC", 12_500_000n);
      // Many checkpoints go by; none is handled, so no report and no cursor moves.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await depositRows(address)).toEqual([]);
      expect(watcher.status().checkpointsProcessed).toBe(0);
      crediting = true;
      await waitFor(async () => (await depositRows(address)).length === 1, { what: "the held deposit" });
      expect((await depositRows(address))[0]?.payload).toMatchObject({ amount: "12500000", coin: "USDC" });
    } finally {
      await watcher.stop();
    }
  });

  it("resumes after a restart in the middle of a checkpoint stream with no gap and no double count", async () => {
    const addresses = await Promise.all([1, 2, 3, 4].map(() => openAddress()));
    let watcher = await startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes: coinTypes(),
      relay: false,
    });
    const digests: string[] = [];
    let restarted = false;
    for (let i = 0; i < 24; i++) {
      const grant = await net.fund(addresses[i % 4]!, "USDC", BigInt(1_000 + i));
      digests.push(grant.digest);
      if (i === 8) {
        // Down for a while: checkpoints keep coming and must be caught up from the cursor.
        await watcher.stop();
        restarted = true;
      }
      if (i === 16)
        watcher = await startSuiWatcher({
          sql: db.sql,
          bus,
          client,
          log,
          coinTypes: coinTypes(),
          relay: false,
        });
    }
    expect(restarted).toBe(true);
    const all = async () => (await Promise.all(addresses.map(depositRows))).flat();
    await waitFor(async () => (await all()).length >= 24, {
      what: "every transfer reported",
      timeoutMs: 15_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    const rows = await all();
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((r) => r.id.split(":")[1]))).toEqual(new Set(digests));
    const total = rows.reduce((sum, r) => sum + BigInt(r.payload.amount), 0n);
    expect(total).toBe(24n * 1_000n + (23n * 24n) / 2n);
    // Each transfer was reported seen exactly once too, ahead of its final.
    const [seen] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from outbox where payload->>'stage' = 'seen' and payload->>'address' in ${db.sql(addresses)}`;
    expect(seen!.n).toBe(24);
    await watcher.stop();
  });

  it("splits the address set between two replicas, each reporting its share", async () => {
    const a = await startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes: coinTypes(),
      relay: false,
      replicaId: "ra",
      heartbeatMs: 100,
    });
    const b = await startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes: coinTypes(),
      relay: false,
      replicaId: "rb",
      heartbeatMs: 100,
    });
    try {
      await waitFor(() => a.status().partitions + b.status().partitions === 64 && b.status().partitions > 0, {
        what: "partitions split",
      });
      const addresses = await Promise.all([...Array(16).keys()].map(() => openAddress()));
      for (const address of addresses) await net.fund(address, "USDC", 7n);
      await waitFor(
        async () => (await Promise.all(addresses.map(depositRows))).every((r) => r.length === 1),
        {
          what: "each address reported once",
        },
      );
      expect(a.status().depositsPublished).toBeGreaterThan(0);
      expect(b.status().depositsPublished).toBeGreaterThan(0);
      expect(a.status().depositsPublished + b.status().depositsPublished).toBe(16);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
