// POST /payments on one API node under wrk alone, measured again and again: the request rate and
// the CPU a request costs the API process and its PostgreSQL backends, run after run. For
// comparing two versions of the API on a noisy machine: run it for each, alternated, and compare
// the spreads (payments-bench.ts gives the whole picture: the floor, the open loop, pgbench).
//   pnpm exec tsx bench/payments-cpu.ts [seconds=10] [runs=2]
// Uses DATABASE_URL / NATS_URL when set, else the machine's PostgreSQL and NATS. Needs wrk.
// PROFILE_DIR=<dir> runs the API under V8's sampling profiler (100 µs), its profile written there.
import { startBenchApi } from "./bench-api.js";
import { createBenchDatabase } from "./harness.js";
import { runWrk } from "./load-tools.js";
import { cpuSeconds } from "./machine.js";

const seconds = Number(process.argv[2] ?? 10);
const runs = Number(process.argv[3] ?? 2);
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

const db = await createBenchDatabase(adminUrl, "bench", 4);
const bench = await startBenchApi(
  db,
  natsUrl,
  process.env.PROFILE_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROFILE_DIR}`, "--cpu-prof-interval=100"]
    : [],
).catch(async (err) => {
  await db.drop();
  throw err;
});
const api = bench.process;
const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });
try {
  const wrk = (s: number) =>
    runWrk({
      url: `${bench.baseUrl}/payments`,
      clients: 16,
      seconds: s,
      body,
      headers: { "Content-Type": "application/json", "x-api-key": bench.key },
      keyed: false,
    });
  wrk(3); // warm-up: JIT, the pool's connections
  const backends = await bench.backendPids();
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
