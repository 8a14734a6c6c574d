// POST /payments on one API node under wrk alone, measured again and again: the request rate and
// the CPU a request costs the API process and its PostgreSQL backends, run after run. For
// comparing two versions of the API on a noisy machine: run it for each, alternated, and compare
// the spreads (payments-bench.ts gives the whole picture: the floor, the open loop, pgbench).
//   pnpm exec tsx bench/payments-cpu.ts [seconds=10] [runs=2]
// Uses DATABASE_URL / NATS_URL when set, else the machine's PostgreSQL and NATS. Needs wrk.
// PROFILE_DIR=<dir> runs the API under V8's sampling profiler (100 µs), its profile written there.
import { createHash, randomBytes } from "node:crypto";
import { migrate, newId } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { startService, waitForReady } from "../test/e2e/src/processes.js";
import { createBenchDatabase } from "./harness.js";
import { runWrk } from "./load-tools.js";
import { cpuSeconds } from "./machine.js";

const seconds = Number(process.argv[2] ?? 10);
const runs = Number(process.argv[3] ?? 2);
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

const db = await createBenchDatabase(adminUrl, "bench", 4);
const { sql } = db;
const key = `gw_test_${randomBytes(30).toString("base64url").replace(/[-_]/g, "x").slice(0, 40)}`;
const merchantId = newId("mer");
const port = await freePort();
const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });

await migrate(sql);
await sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'bench@example.test', 'Bench', 'x')`;
await sql`insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix)
  values (${newId("key")}, ${merchantId}, ${createHash("sha256").update(key).digest()}, 'gw_test_…',
          ${randomBytes(32)}, 'gw_live_…')`;
const api = startService(
  "services/api",
  {
    DATABASE_URL: db.url,
    NATS_URL: natsUrl,
    BUS_PREFIX: `bench${Date.now().toString(36)}`,
    PORT: String(port),
    JWT_SECRET: "bench-secret-bench-secret-bench-secret-00",
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
    // A merchant's flash sale from one server: the budget raised, as payments-bench.ts raises it.
    RATE_LIMIT_PER_MINUTE: "100000000",
    LOG_LEVEL: "warn",
  },
  process.env.PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROFILE_DIR}`, "--cpu-prof-interval=100"]
    : [],
);
try {
  await waitForReady(`http://127.0.0.1:${port}/readyz`, api);
  const wrk = (s: number) =>
    runWrk({
      url: `http://127.0.0.1:${port}/payments`,
      clients: 16,
      seconds: s,
      body,
      headers: { "Content-Type": "application/json", "x-api-key": key },
      keyed: false,
    });
  wrk(3); // warm-up: JIT, the pool's connections
  const backends = (
    await sql<
      { pid: number }[]
    >`select pid from pg_stat_activity where datname = ${new URL(db.url).pathname.slice(1)} and pid <> pg_backend_pid()`
  ).map((r) => r.pid);
  const apiPid = api.child.pid ?? 0;
  for (let i = 0; i < runs; i++) {
    const before = { api: cpuSeconds([apiPid]), pg: cpuSeconds(backends) };
    const result = wrk(seconds);
    const requests = result.rate * seconds;
    const perRequest = (s: number) => ((s / requests) * 1e6).toFixed(0);
    process.stdout.write(
      `${new Date().toISOString().slice(11, 19)} rate ${result.rate.toFixed(0)} req/s, API ${perRequest(cpuSeconds([apiPid]) - before.api)} µs, backends ${perRequest(cpuSeconds(backends) - before.pg)} µs a request, wrk p99 ${result.p99.toFixed(1)} ms\n`,
    );
  }
} finally {
  await api.stop();
  await db.drop();
}
