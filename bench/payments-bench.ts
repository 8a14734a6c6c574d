// POST /payments on one API node, next to pgbench's single-row INSERT rate with the same number
// of clients, in the same run. Then p99 latency at half the measured rate (open loop).
//   pnpm exec tsx bench/payments-bench.ts [clients=16] [seconds=10]
// Uses DATABASE_URL / NATS_URL when set, else the machine's PostgreSQL (127.0.0.1:5432, user
// postgres) and NATS (127.0.0.1:4222). Needs Debian's pgbench.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createSql, migrate, newId } from "@gateway/db";
import { findExecutable, freePort } from "@gateway/local-infra";
import { startService, waitForReady } from "../test/e2e/src/processes.js";
import { machineLine, percentile } from "./machine.js";

const clients = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

const dbName = `gw_bench_${Date.now().toString(36)}`;
const admin = createSql({ url: adminUrl, max: 1 });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
const sql = createSql({ url: dbUrl.toString(), max: 4 });
await migrate(sql);

// A merchant with a test key, written directly (key format and hashing as the API does).
const key = `gw_test_${randomBytes(30).toString("base64url").replace(/[-_]/g, "x").slice(0, 40)}`;
const live = `gw_live_${randomBytes(30).toString("base64url").replace(/[-_]/g, "x").slice(0, 40)}`;
const merchantId = newId("mer");
await sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'bench@example.test', 'Bench', 'x')`;
await sql`insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix)
  values (${newId("key")}, ${merchantId}, ${createHash("sha256").update(key).digest()}, 'gw_test_…',
          ${createHash("sha256").update(live).digest()}, 'gw_live_…')`;

const port = await freePort();
const api = startService("services/api", {
  DATABASE_URL: dbUrl.toString(),
  NATS_URL: natsUrl,
  BUS_PREFIX: `bench${Date.now().toString(36)}`,
  PORT: String(port),
  JWT_SECRET: "bench-secret-bench-secret-bench-secret-00",
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
  RATE_LIMIT_PER_MINUTE: "100000000",
  LOG_LEVEL: "warn",
});
const base = `http://127.0.0.1:${port}`;
await waitForReady(`${base}/readyz`, api);

const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });
async function create(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/payments`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`status ${res.status}`);
  return performance.now() - started;
}

async function openLoop(rate: number, durationMs: number) {
  const latencies: number[] = [];
  const interval = 1000 / rate;
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; performance.now() - started < durationMs; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push(create().then((ms) => void latencies.push(ms)));
  }
  await Promise.all(inflight);
  return latencies.sort((a, b) => a - b);
}

// The closed loop is driven by wrk (C, from Debian): a Node fetch client on this 2-core machine
// would measure itself more than the API. wrk's --latency gives the percentiles.
function wrkRun(durationS: number) {
  const lua = path.join("/tmp", `gw-bench-${process.pid}.lua`);
  writeFileSync(
    lua,
    [
      'wrk.method = "POST"',
      `wrk.body = '${body}'`,
      'wrk.headers["Content-Type"] = "application/json"',
      `wrk.headers["x-api-key"] = "${key}"`,
    ].join("\n"),
  );
  const wrk = findExecutable("wrk") ?? "/usr/bin/wrk";
  const text = execFileSync(
    wrk,
    ["-t2", `-c${clients}`, `-d${durationS}s`, "--latency", "-s", lua, `${base}/payments`],
    {
      encoding: "utf8",
    },
  );
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors:\n${text}`);
  const ms = (label: string) => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(text);
    if (!m) return Number.NaN;
    const value = Number(m[1]);
    return m[2] === "us" ? value / 1000 : m[2] === "s" ? value * 1000 : value;
  };
  return { rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]), p50: ms("50"), p99: ms("99") };
}

wrkRun(2); // warm-up: JIT, connection pools
const wrk1 = wrkRun(seconds);
const api1 = { rate: wrk1.rate, latencies: [] as number[] };

// pgbench: the same number of clients inserting one row each, prepared statements.
const pgbench = findExecutable("pgbench") ?? "/usr/lib/postgresql/15/bin/pgbench";
await sql`create table bench_insert (id bigserial primary key, merchant_id text, amount bigint, created_at timestamptz default now())`;
const script = path.join("/tmp", `gw-bench-${process.pid}.sql`);
writeFileSync(script, "insert into bench_insert (merchant_id, amount) values ('mer_x', 1250);\n");
const out = execFileSync(
  pgbench,
  [
    "-n",
    "-M",
    "prepared",
    "-c",
    String(clients),
    "-j",
    "2",
    "-T",
    String(seconds),
    "-f",
    script,
    dbUrl.toString(),
  ],
  { encoding: "utf8" },
);
const pgRate = Number(out.match(/tps = ([\d.]+)/)?.[1] ?? Number.NaN);

const half = await openLoop(api1.rate / 2, seconds * 1000);

const ratio = api1.rate / pgRate;
const lines = [
  `## POST /payments on one API node (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Machine: ${machineLine()}. PostgreSQL and NATS on the same machine; the load generator runs on it too.`,
  "",
  "| measure | value |",
  "| - | - |",
  `| clients | ${clients} |`,
  `| POST /payments throughput (wrk closed loop, ${seconds} s) | ${api1.rate.toFixed(0)} req/s |`,
  `| latency p50 / p99 at that load (wrk) | ${wrk1.p50.toFixed(1)} / ${wrk1.p99.toFixed(1)} ms |`,
  `| pgbench single-row INSERT, same clients | ${pgRate.toFixed(0)} tps |`,
  `| API rate / pgbench rate | ${(ratio * 100).toFixed(0)} % (goal ≥ 60 %) |`,
  `| open loop at half the API rate (${(api1.rate / 2).toFixed(0)} req/s, Node client): p50 / p99 | ${percentile(half, 50).toFixed(1)} / ${percentile(half, 99).toFixed(1)} ms (goal p99 ≤ 25 ms) |`,
  "",
];
process.stdout.write(`${lines.join("\n")}\n`);
if (process.argv.includes("--record"))
  writeFileSync(path.join(import.meta.dirname, "RESULTS-payments.md"), `${lines.join("\n")}\n`);

await api.stop();
await sql.end();
await admin.unsafe(`drop database ${dbName} with (force)`);
await admin.end();
