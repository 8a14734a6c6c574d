// The watcher as its own process, killed with SIGKILL in the middle of a stream of transfers and
// started again: every transfer is reported seen and final exactly once, none is missed.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PARTITIONS } from "@gateway/chain-sui/watcher";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES } from "@gateway/domain";
import { insertPayment } from "@gateway/payments";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, ROOT } from "./processes.js";

let db: TestDatabase;
let testBus: TestBus;
let net: SuiLocalnet;
const merchantId = newId("mer");
// tsx's ESM loader (what `--import tsx` resolves to), by path: vitest has no import.meta.resolve.
const TSX_LOADER = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

beforeAll(async () => {
  [db, testBus, net] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 }),
  ]);
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
afterAll(async () => {
  await net?.close();
  await testBus?.cleanup();
  await db?.drop();
});

async function startWatcherProcess(healthPort: number): Promise<ChildProcess> {
  // Node itself with tsx's loader (no wrapper process), so SIGKILL kills the watcher.
  const child = spawn(process.execPath, ["--import", TSX_LOADER, "src/main.ts"], {
    cwd: path.join(ROOT, "services/watcher"),
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      WATCHER_CHAIN: "sui",
      DATABASE_URL: db.url,
      NATS_URL: testBus.natsUrl,
      BUS_PREFIX: testBus.prefix,
      SUI_GRPC_URL: net.url,
      SUI_NETWORK: "localnet",
      SUI_CHAIN_ID: net.info().chainId,
      SUI_USDC_COIN_TYPE: net.coinType("USDC"),
      SUI_USDT_COIN_TYPE: net.coinType("USDT"),
      SUI_WATCHER_REPLICA_ID: "watcher-sui-0",
      HEALTH_PORT: String(healthPort),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => null))?.status === 200,
    { what: "watcher-sui ready", timeoutMs: 30_000 },
  );
  return child;
}

async function openAddress(index: number) {
  const state = initialPaymentState({
    id: randomUUID(),
    mode: "live",
    currency: "USD",
    amount: 1250n,
    fee: computeFee(1250n, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  const address = new Ed25519Keypair().toSuiAddress();
  await db.sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
    values (${newId("dw")}, ${state.id}, 'live', 'sui', 'USDC', ${index}, ${address}, 12500000)`;
  return address;
}

describe("watcher-sui process", () => {
  it("killed mid-stream and restarted: no gap, no double count", async () => {
    const addresses = await Promise.all([0, 1, 2, 3].map(openAddress));
    const port = await freePort();
    let watcher = await startWatcherProcess(port);
    const digests: string[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        digests.push((await net.fund(addresses[i % 4]!, "USDC", BigInt(100 + i))).digest);
        if (i === 10) {
          watcher.kill("SIGKILL");
          await new Promise((resolve) => watcher.once("exit", resolve));
        }
        if (i === 20) watcher = await startWatcherProcess(port);
      }
      const reports = () =>
        db.sql<{ id: string; stage: string; amount: string }[]>`
          select id, payload->>'stage' as stage, payload->>'amount' as amount from outbox
          where payload->>'address' in ${db.sql(addresses)}`;
      await waitFor(async () => (await reports()).filter((r) => r.stage === "final").length >= 30, {
        what: "every transfer final",
        timeoutMs: 20_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const rows = await reports();
      const finals = rows.filter((r) => r.stage === "final");
      expect(finals).toHaveLength(30);
      expect(rows.filter((r) => r.stage === "seen")).toHaveLength(30);
      expect(new Set(finals.map((r) => r.id.split(":")[1]))).toEqual(new Set(digests));
      expect(finals.reduce((sum, r) => sum + BigInt(r.amount), 0n)).toBe(30n * 100n + (29n * 30n) / 2n);
      // The relay in the watcher process published them to JetStream.
      await waitFor(
        async () => {
          const [row] = await db.sql<{ n: number }[]>`
            select count(*)::int as n from outbox_pending`;
          return row!.n === 0;
        },
        { what: "outbox drained" },
      );
      // The restarted process counts what it published and is not behind the chain for long.
      const metrics = await waitFor(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          const lag = Number(/gateway_watcher_lag_checkpoints\{[^}]*\} (\d+)/.exec(text)?.[1] ?? Number.NaN);
          return lag <= 2 && text;
        },
        { what: "lag within two checkpoints", timeoutMs: 15_000 },
      );
      expect(metrics).toMatch(/gateway_watcher_open_addresses\{[^}]*chain="sui"[^}]*\} 4/);
      expect(metrics).toContain("gateway_deposits_detected_total");
      // Run by the one watcher service, it still is watcher-sui to whoever reads its health.
      expect(metrics).toMatch(/gateway_chain_crediting\{[^}]*service="watcher-sui"[^}]*\} 1/);
      const ready = await (await fetch(`http://127.0.0.1:${port}/readyz`)).json();
      expect(ready).toEqual({ status: "ok", database: "ok", nats: "ok", sui: "ok", preflight: "ok" });
      const status = await (await fetch(`http://127.0.0.1:${port}/status`)).json();
      expect(status).toMatchObject({ replicaId: "watcher-sui-0", openAddresses: 4, partitions: PARTITIONS });
      expect(status.checkpoint).toMatch(/^\d+$/);
    } finally {
      // Stopped before the database goes away.
      const exited = new Promise((resolve) => watcher.once("exit", resolve));
      if (watcher.exitCode === null && watcher.signalCode === null) {
        watcher.kill("SIGTERM");
        await exited;
      }
    }
  });
});
