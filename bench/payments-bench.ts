// POST /payments on one API node, next to the bare Express 5 server that only reads the body and
// answers (bench/http-floor-server.ts, the floor any Express endpoint meets) and pgbench's
// single-row INSERT rate, each with the same number of clients, in the same run; the open-loop latency at half the measured rate; and the CPU one
// request costs the API process and its PostgreSQL backends (from Linux /proc).
//   pnpm exec tsx bench/payments-bench.ts [clients=16] [seconds=10] [--keyed] [--record]
// --keyed sends an Idempotency-Key, a new one on every request, as a careful merchant does
// (recorded in a results file of its own, apart from the unkeyed runs the goal is read from).
// Uses DATABASE_URL / NATS_URL when set, else the machine's PostgreSQL (127.0.0.1:5432, user
// postgres) and NATS (127.0.0.1:4222). Needs Debian's pgbench.
import http from "node:http";
import os from "node:os";
import { startBenchApi } from "./bench-api.js";
import { createBenchDatabase, recordResults } from "./harness.js";
import { measureFloorServer, pgbenchInsertRate, runWrk } from "./load-tools.js";
import { cpuSeconds, machineBusySeconds, machineLine, percentile } from "./machine.js";

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const clients = Number(positional[0] ?? 16);
const seconds = Number(positional[1] ?? 10);
const keyed = process.argv.includes("--keyed");
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const natsUrl = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

const db = await createBenchDatabase(adminUrl, "bench", 4);
const { sql } = db;
const bench = await startBenchApi(db, natsUrl).catch(async (err) => {
  await db.drop();
  throw err;
});
const { baseUrl: base, key } = bench;
const api = bench.process;

const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });
// node:http with a keep-alive agent: several times cheaper per request than fetch, which matters
// when the client shares two cores with the API and PostgreSQL.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
let opened = 0;
function create(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/payments`,
      {
        method: "POST",
        agent,
        headers: {
          "x-api-key": key,
          "content-type": "application/json",
          "content-length": body.length,
          ...(keyed ? { "idempotency-key": `bench-open-${process.pid}-${++opened}` } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Requests sent on a fixed schedule whatever the answers do. Latency counts from when a request
 * was due, not from when the client got round to sending it, so a stalled client or server cannot
 * hide queueing (coordinated omission); how late the client was is reported beside it.
 */
async function openLoop(rate: number, durationMs: number) {
  const latencies: number[] = [];
  const lateness: number[] = [];
  const interval = 1000 / rate;
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i * interval < durationMs; i++) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    lateness.push(Math.max(0, performance.now() - due));
    inflight.push(create().then(() => void latencies.push(performance.now() - due)));
  }
  await Promise.all(inflight);
  return { latencies: latencies.sort((a, b) => a - b), lateness: lateness.sort((a, b) => a - b) };
}

const wrkRun = (durationS: number) =>
  runWrk({
    url: `${base}/payments`,
    clients,
    seconds: durationS,
    body,
    headers: { "Content-Type": "application/json", "x-api-key": key },
    keyed,
  });

try {
  wrkRun(2); // warm-up: JIT, connection pools (the pool's connections all exist after it)
  const backends = await bench.backendPids();
  const apiPid = api.child.pid ?? 0;
  const loadBefore = os.loadavg()[0]!;
  const before = { api: cpuSeconds([apiPid]), pg: cpuSeconds(backends), machine: machineBusySeconds() };
  const wrk1 = wrkRun(seconds);
  const cpu = {
    api: cpuSeconds([apiPid]) - before.api,
    pg: cpuSeconds(backends) - before.pg,
    machine: machineBusySeconds() - before.machine,
  };
  const requests = wrk1.rate * seconds;
  const perRequest = (s: number) => `${((s / requests) * 1e6).toFixed(0)} µs`;

  // The open loop runs before pgbench, so that pgbench's WAL and its checkpoint do not land in
  // the API's latency. One unmeasured second at the same rate opens the client's connections.
  await openLoop(wrk1.rate / 2, 1000);
  const half = await openLoop(wrk1.rate / 2, seconds * 1000);

  // The floor: bare Express with express.json(), same clients and length, while the API idles.
  const floor = await measureFloorServer("express", { clients, seconds, body });
  const floorCpu = floor.cpuPerRequest * 1e6;
  const apiCpu = (cpu.api / requests) * 1e6;
  // pgbench: the same number of clients inserting one row each, prepared statements.
  const pgRate = await pgbenchInsertRate(sql, db.url, clients, seconds);
  const loadAfter = os.loadavg()[0]!;

  const lines = [
    `## POST /payments on one API node${keyed ? ", every request with its own Idempotency-Key" : ""} (${new Date().toISOString().slice(0, 10)})`,
    "",
    `Machine: ${machineLine()}. PostgreSQL and NATS on the same machine; the load generator runs on it too.`,
    `Load average (1 min) ${loadBefore.toFixed(1)} before the run, ${loadAfter.toFixed(1)} after.`,
    "",
    "| measure | value |",
    "| - | - |",
    `| clients | ${clients} |`,
    `| POST /payments throughput (wrk closed loop, ${seconds} s) | ${wrk1.rate.toFixed(0)} req/s |`,
    `| latency p50 / p99 at that load (wrk) | ${wrk1.p50.toFixed(1)} / ${wrk1.p99.toFixed(1)} ms |`,
    `| pgbench single-row INSERT, same clients | ${pgRate.toFixed(0)} tps |`,
    `| bare Express 5 + express.json() (the floor), same clients: throughput / CPU per request | ${floor.rate.toFixed(0)} req/s / ${floorCpu.toFixed(0)} µs |`,
    `| POST /payments rate / the floor's rate | ${((wrk1.rate / floor.rate) * 100).toFixed(0)} % (goal ≥ 60 %) |`,
    `| API CPU per request beyond the floor's | ${(apiCpu - floorCpu).toFixed(0)} µs |`,
    `| API rate / pgbench rate | ${((wrk1.rate / pgRate) * 100).toFixed(0)} % |`,
    `| open loop at half the API rate (${(wrk1.rate / 2).toFixed(0)} req/s, Node client): p50 / p99 | ${percentile(half.latencies, 50).toFixed(1)} / ${percentile(half.latencies, 99).toFixed(1)} ms (goal p99 ≤ 25 ms) |`,
    `| how late the open-loop client sent, p99 / max | ${percentile(half.lateness, 99).toFixed(1)} / ${half.lateness.at(-1)?.toFixed(1)} ms |`,
    `| CPU per request during the wrk run: API process / its PostgreSQL backends | ${perRequest(cpu.api)} / ${perRequest(cpu.pg)} |`,
    `| machine busy during the wrk run (all processes, 2 cores = 200 %) | ${((cpu.machine / seconds) * 100).toFixed(0)} %, of which API ${((cpu.api / seconds) * 100).toFixed(0)} %, its backends ${((cpu.pg / seconds) * 100).toFixed(0)} % |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (process.argv.includes("--record"))
    recordResults(keyed ? "RESULTS-payments-keyed.md" : "RESULTS-payments.md", lines);
} finally {
  await api.stop();
  await db.drop();
}
