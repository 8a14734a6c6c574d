// Solana live-path benchmark on this machine, against the local Solana network:
//   1. latency: a customer's transfer reaches `finalized` → the payment.confirmed event is in
//      PostgreSQL (watcher + settlement in this process, real PostgreSQL and NATS, webhooks on);
//   2. scale: one watcher process (services/watcher with WATCHER_CHAIN=solana, as in production) with
//      N open addresses: its memory, and the chain calls it makes per slot, counted by a proxy
//      in front of the RPC node.
//   pnpm exec tsx bench/solana-bench.ts [--write] [--payments=60] [--open=100000]
//   (--write updates bench/RESULTS-solana.md)
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import path, { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@gateway/local-infra";
import { startTestSigner } from "@gateway/signer-harness";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import bs58 from "bs58";
import { connectBus } from "../packages/bus/src/index.js";
import { createSolanaSettlement } from "../packages/chain-solana/src/index.js";
import { createHeliusRegistry, startSolanaWatcher } from "../packages/chain-solana/src/watcher/index.js";
import { createSql, migrate, newId, type Sql } from "../packages/db/src/index.js";
import {
  computeFee,
  initialPaymentState,
  STATIC_TEST_PRICES,
  toCoinUnits,
} from "../packages/domain/src/index.js";
import { startNats, startPostgres } from "../packages/local-infra/src/index.js";
import { createLogger } from "../packages/logging/src/index.js";
import { applyPaymentMessage, insertPayment } from "../packages/payments/src/index.js";
import { startSettlement } from "../services/settlement/src/settlement.js";
import { createSolanaLocalnet } from "../test/solana-localnet/src/index.js";
import { machineLine, percentile } from "./machine.js";
import { writeKeepingNotes } from "./notes-marker.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, "").split("=");
    return [k!, v ?? "true"] as const;
  }),
);
const PAYMENTS = Number(args.get("payments") ?? 60);
const OPEN = Number(args.get("open") ?? 100_000);
const SLOT_MS = 50;
const FINALITY_SLOTS = 8;
const POLL_MS = Number(args.get("poll-ms") ?? 50);
const log = createLogger({ name: "solana-bench", level: "warn" });
const AUTH = "Bearer solana-bench-webhook-secret";

async function database(adminUrl: string, name: string): Promise<{ sql: Sql; url: string }> {
  const admin = createSql({ url: adminUrl, max: 1 });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sql = createSql({ url: url.toString(), max: 10, applicationName: "solana-bench" });
  await migrate(sql);
  return { sql, url: url.toString() };
}

async function latency(adminUrl: string, natsUrl: string) {
  const net = await createSolanaLocalnet({
    rpcPort: 0,
    wsPort: 0,
    slotMs: SLOT_MS,
    finalitySlots: FINALITY_SLOTS,
    webhookRetries: 0,
  });
  const finalizedAt = new Map<string, number>();
  net.chain.on("finalized", (records) => {
    const now = Date.now();
    for (const record of records) finalizedAt.set(record.signature, now);
  });
  const { sql } = await database(adminUrl, `solana_bench_${Date.now().toString(36)}`);
  const bus = await connectBus({ url: natsUrl, prefix: `sb${Date.now().toString(36)}`, name: "bench", log });
  const signer = await startTestSigner();
  const connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
  const wallets = (await signer.client.getServiceAddresses()).solana.live;
  net.fund(wallets.gas, "SOL", "1000");
  net.fund(wallets.vault, "USDC", "0.000001");
  const merchantId = newId("mer");
  await sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'b@example.com', 'Bench', 'x')`;
  const settlement = await startSettlement({
    sql,
    bus,
    log,
    publicBaseUrl: "https://pay.example",
    expiryPollMs: 1000,
    outboxPollMs: 20,
    chains: {
      solana: createSolanaSettlement({
        sql,
        connection,
        signer: signer.client,
        approver: signer.approvers.settlement,
        mints: net.mints,
        log,
        pollMs: 50,
      }),
    },
  });
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhooks/solana`;
  const watcher = await startSolanaWatcher({
    sql,
    bus,
    log,
    connection,
    mints: net.mints,
    replicaId: "bench",
    ingress: { host: "127.0.0.1", port, authHeader: AUTH },
    registry: createHeliusRegistry({ baseUrl: net.rpcUrl, webhookUrl, authHeader: AUTH }),
    reconcileCallsPerSecond: 20,
    pollMs: POLL_MS,
    openRefreshMs: 100,
  });

  const payer = Keypair.generate();
  net.fund(payer.publicKey.toBase58(), "SOL", "10");
  net.fund(payer.publicKey.toBase58(), "USDC", "100000");
  const mint = new PublicKey(net.mints.USDC);
  const samples: number[] = [];
  const actor = { sql, topology: bus.topology, log, publicBaseUrl: "https://pay.example" };
  for (let i = 0; i < PAYMENTS; i++) {
    const state = initialPaymentState({
      id: randomUUID(),
      mode: "live",
      currency: "USD",
      amount: 1000n,
      fee: computeFee(1000n, "USD", STATIC_TEST_PRICES),
      expiresAt: Date.now() + 600_000,
    });
    await insertPayment(sql, { state, merchantId, description: null, redirectUrl: null });
    const address = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index: i });
    const amountDue = toCoinUnits(1000n, "USD", "USDC");
    await sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
      values (${newId("dw")}, ${state.id}, 'live', 'solana', 'USDC', ${i}, ${address}, ${amountDue})`;
    await applyPaymentMessage(actor, state.id, {
      type: "wallet_assigned",
      chain: "solana",
      coin: "USDC",
      address,
      amountDue,
    });
    while (!net.webhooks.list().some((w) => w.accountAddresses.includes(address))) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const owner = new PublicKey(address);
    const to = getAssociatedTokenAddressSync(mint, owner, true);
    const tx = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, to, owner, mint),
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(mint, payer.publicKey),
        mint,
        to,
        payer.publicKey,
        amountDue,
        6,
      ),
    );
    tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    const signature = await connection.sendRawTransaction(tx.serialize());
    for (;;) {
      const [event] = await sql<{ at: Date }[]>`
        select created_at as at from events where payment_id = ${state.id} and type = 'payment.confirmed'`;
      const final = finalizedAt.get(signature);
      if (event && final !== undefined) {
        samples.push(event.at.getTime() - final);
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  await watcher.stop();
  await settlement.stop();
  await bus.close();
  await signer.close();
  await net.close();
  await sql.end();
  samples.sort((a, b) => a - b);
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    max: samples.at(-1)!,
    n: samples.length,
  };
}

/** A JSON-RPC proxy that counts calls (each entry of a batch counts), by method. */
async function countingProxy(target: string) {
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString("utf8"));
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
        }
      } catch {
        // not JSON-RPC (health, webhooks API): forwarded uncounted
      }
      const response = await fetch(new URL(req.url ?? "/", target), {
        method: req.method ?? "GET",
        headers: { "content-type": req.headers["content-type"] ?? "application/json" },
        ...(req.method === "GET" ? {} : { body }),
      });
      res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "" });
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

async function scale(adminUrl: string, natsUrl: string, open: number) {
  const net = await createSolanaLocalnet({
    rpcPort: 0,
    wsPort: 0,
    slotMs: SLOT_MS,
    finalitySlots: FINALITY_SLOTS,
  });
  const proxy = await countingProxy(net.rpcUrl);
  const { sql, url } = await database(adminUrl, `solana_scale_${Date.now().toString(36)}`);
  const merchantId = newId("mer");
  await sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'b@example.com', 'Bench', 'x')`;
  for (let start = 0; start < open; start += 10_000) {
    const n = Math.min(10_000, open - start);
    const ids = Array.from({ length: n }, () => randomUUID());
    const addresses = Array.from({ length: n }, () => bs58.encode(randomBytes(32)));
    await sql`insert into payments (id, merchant_id, mode, amount, currency, fee, status, state, expires_at)
      select id, ${merchantId}, 'live', 1000, 'USD', 10, 'pending', '{}'::jsonb, now() + interval '1 hour'
      from unnest(${ids}::uuid[]) as id`;
    await sql`insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
      select 'dw_' || md5(a), p, 'live', 'solana', 'USDC', ${start} + i, a, 10000000
      from unnest(${ids}::uuid[], ${addresses}::text[]) with ordinality as t(p, a, i)`;
  }
  const healthPort = await freePort();
  const child: ChildProcess = spawn(path.join(ROOT, "node_modules/.bin/tsx"), ["src/main.ts"], {
    cwd: path.join(ROOT, "services/watcher"),
    env: {
      PATH: process.env.PATH ?? "",
      WATCHER_CHAIN: "solana",
      DATABASE_URL: url,
      NATS_URL: natsUrl,
      BUS_PREFIX: `ss${Date.now().toString(36)}`,
      LOG_LEVEL: "warn",
      HEALTH_PORT: String(healthPort),
      PORT: String(await freePort()),
      SOLANA_RPC_URL: proxy.url,
      SOLANA_NETWORK: "localnet",
      SOLANA_GENESIS_HASH: net.genesisHash,
      WEBHOOK_AUTH_HEADER: AUTH,
      RECONCILE_CALLS_PER_SECOND: "20",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${healthPort}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Warm up (ATA derivations, first full pass of the open set), then measure a window.
  await new Promise((r) => setTimeout(r, 3000));
  const before = proxy.total();
  const slotBefore = net.slot();
  const windowMs = 10_000;
  let peak = 0;
  let peakLauncher = 0;
  const sampler = setInterval(() => {
    // The tsx launcher's child is the node process running the watcher.
    peak = Math.max(peak, childRss(child.pid!));
    peakLauncher = Math.max(peakLauncher, rssMiB(child.pid!));
  }, 200);
  await new Promise((r) => setTimeout(r, windowMs));
  clearInterval(sampler);
  const calls = proxy.total() - before;
  const slots = net.slot() - slotBefore;
  const byMethod = Object.fromEntries(proxy.counts);
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  await proxy.close();
  await net.close();
  await sql.end();
  return {
    open,
    calls,
    slots,
    perSlot: calls / slots,
    peakRssMiB: peak,
    launcherRssMiB: peakLauncher,
    byMethod,
  };
}

/** RSS of the children of `pid` (tsx runs the script in a child node process). */
function childRss(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return children.reduce((sum, c) => sum + rssMiB(Number(c)) + childRss(Number(c)), 0);
  } catch {
    return 0;
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "gw-solana-bench-"));
  chmodSync(dir, 0o755);
  const pg = process.env.DATABASE_URL ? undefined : await startPostgres({ dataDir: join(dir, "pg") });
  const nats = process.env.NATS_URL ? undefined : await startNats({ storeDir: join(dir, "nats") });
  const adminUrl = process.env.DATABASE_URL ?? pg!.url;
  const natsUrl = process.env.NATS_URL ?? nats!.url;
  try {
    // The machine is shared: its load during the run goes into the record with the figures.
    const loadBefore = loadavg()[0]!.toFixed(1);
    const lat = await latency(adminUrl, natsUrl);
    console.log("latency", lat);
    const small = await scale(adminUrl, natsUrl, 1000);
    console.log("scale", small);
    const big = await scale(adminUrl, natsUrl, OPEN);
    console.log("scale", big);
    const report = `# Solana live path: measured results

Machine: ${machineLine()}
Run: \`pnpm exec tsx bench/solana-bench.ts --write\` (${new Date().toISOString().slice(0, 10)}); 1-minute load
average ${loadBefore} at the start and ${loadavg()[0]!.toFixed(1)} at the end (the machine was shared with other
work: figures on an idle machine are lower, the calls per slot are not affected).

## Finality → payment.confirmed event

Local network with ${SLOT_MS} ms slots and finality after ${FINALITY_SLOTS} slots; provider
webhooks on; watcher and settlement in one process with real PostgreSQL and NATS JetStream;
watcher signature poll ${POLL_MS} ms. Measured from the moment the network finalizes the slot
holding the customer's transfer to the \`created_at\` of the \`payment.confirmed\` event
(PostgreSQL clock, same machine), one payment at a time.

| payments | p50 | p99 | max |
| - | - | - | - |
| ${lat.n} | ${lat.p50} ms | ${lat.p99} ms | ${lat.max} ms |

The latency is bounded by the watcher's status poll (\`SIGNATURE_POLL_MS\`, default 100 ms,
set to ${POLL_MS} ms here: expect about half the poll interval at p50) plus one
\`getTransaction\`, one JetStream publish and one actor step. The merchant webhook adds the notifier's delivery on top (measured in
RESULTS-webhooks.md).

## One watcher, many open addresses

The watcher process (\`services/watcher\` with \`WATCHER_CHAIN=solana\`, started with \`tsx src/main.ts\`, as the local
runner does) with \`RECONCILE_CALLS_PER_SECOND=20\`, every open address a USDC wallet; chain
calls counted by a JSON-RPC proxy over a 10 s window after a 3 s warm-up; RSS is the
peak of the node process running the watcher (the \`tsx\` launcher process beside it, which a
production image would not have, is listed apart).

| open addresses | chain calls | slots | calls per slot | watcher peak RSS | tsx launcher RSS |
| - | - | - | - | - | - |
| ${small.open.toLocaleString("en")} | ${small.calls} | ${small.slots} | ${small.perSlot.toFixed(2)} | ${small.peakRssMiB.toFixed(0)} MiB | ${small.launcherRssMiB.toFixed(0)} MiB |
| ${big.open.toLocaleString("en")} | ${big.calls} | ${big.slots} | ${big.perSlot.toFixed(2)} | ${big.peakRssMiB.toFixed(0)} MiB | ${big.launcherRssMiB.toFixed(0)} MiB |

Calls by method (${big.open.toLocaleString("en")} addresses): \`${JSON.stringify(big.byMethod)}\`.

Calls per slot are set by the reconciliation budget, not by the number of open addresses: a
full reconciliation pass over ${big.open.toLocaleString("en")} addresses at 20 calls/s takes
${Math.round(big.open / 20 / 60)} minutes, which is the delay for a transfer whose webhook was lost (webhooks
themselves cost no chain calls until they name an open address).
`;
    if (args.has("write")) writeKeepingNotes(join(ROOT, "bench/RESULTS-solana.md"), report);
    console.log(report);
  } finally {
    await nats?.stop();
    await pg?.stop();
  }
}

await main();
process.exit(0);
