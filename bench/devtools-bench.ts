// The developer tools' costs against the cluster as `npm start` runs it (issue 43):
// 1. Reading events against reading payments: `GET /events?limit=100` and `GET /payments?limit=100`,
//    each paged `pages` deep by 8 clients on kept-alive connections, the two alternated `rounds`
//    times over the same merchant's 100,000 payments and 100,000 events. Per kind: pages a second,
//    the API process's CPU a page and its PostgreSQL backends'.
// 2. `GET /exports/payments.csv` of those 100,000 payments, after each round's reads: the API's
//    resident memory sampled every 10 ms against its idle figure 2 s after those reads, and 2 s
//    after the export (what stays, from the export or the next round's reads, shows), rows a
//    second and the API's CPU a row, the rows read back and counted.
// The rows are real test payments (created, simulated paid, their events written by settlement),
// copied in SQL to the count.
//   pnpm exec tsx bench/devtools-bench.ts [count=100000] [pages=20] [rounds=3] [--record]
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { createSql } from "../packages/db/src/index.js";
import { createTestMerchant } from "../services/api/test/merchant.js";
import { rawRequest } from "../test/fuzz/src/raw-request.js";
import { removeClusterData, startSoakCluster } from "../test/soak/src/cluster.js";
import { serviceOfProcess } from "./cluster-processes.js";
import { cpuSeconds, machineLine } from "./machine.js";
import { writeKeepingNotes } from "./notes-marker.js";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const [count = 100_000, pages = 20, rounds = 3] = args.map(Number);
const record = process.argv.includes("--record");
const CLIENTS = 8;
const SEEDS = 200;

const cluster = await startSoakCluster({ logLevel: "warn" });
const sql = createSql({ url: cluster.databaseUrl, max: 2 });
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stdout.write(`${line}\n`);
};

async function get(path: string, key: string): Promise<{ data: { id: string }[]; has_more: boolean }> {
  const { status, text } = await rawRequest(
    cluster.apiUrl,
    "GET",
    path,
    { "x-api-key": key },
    undefined,
    agent,
  );
  if (status !== 200) throw new Error(`GET ${path}: ${status} ${text}`);
  return JSON.parse(text);
}

/** This cluster's API: a child of its runner (a developer's own cluster from the same checkout is not). */
function apiPid(): number {
  const children = readdirSync(`/proc/${cluster.runnerPid}/task`).flatMap((task) =>
    readFileSync(`/proc/${cluster.runnerPid}/task/${task}/children`, "utf8").split(" ").filter(Boolean),
  );
  const pid = children.map(Number).find((p) => serviceOfProcess(p) === "api");
  if (pid === undefined) throw new Error("no API process");
  return pid;
}

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/** Real test payments, simulated paid by settlement, then copied with their events up to `count`. */
async function seed(key: string, merchantId: string) {
  const ids: string[] = [];
  for (let i = 0; i < SEEDS; i++) {
    const body = JSON.stringify({ amount: 10 + i, currency: "USD", description: `Order ${i}, "bench"` });
    const created = await rawRequest(
      cluster.apiUrl,
      "POST",
      "/payments",
      { "x-api-key": key, "content-type": "application/json" },
      body,
      agent,
    );
    const id = JSON.parse(created.text).id as string;
    await rawRequest(
      cluster.apiUrl,
      "POST",
      `/payments/checkout/${id}/simulate`,
      { "content-type": "application/json" },
      '{"outcome":"paid"}',
      agent,
    );
    ids.push(id);
  }
  for (;;) {
    const [row] = await sql<
      { n: bigint }[]
    >`select count(*) as n from events where merchant_id = ${merchantId}`;
    if (Number(row!.n) >= SEEDS) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const copies = count - SEEDS;
  await sql`
    with seed as (select p.*, row_number() over (order by id) - 1 as k from payments p where merchant_id = ${merchantId})
    insert into payments (id, merchant_id, mode, amount, currency, fee, description, redirect_url, status, chain,
                          coin, state, version, expires_at, created_at, updated_at)
    select gen_random_uuid(), s.merchant_id, s.mode, s.amount, s.currency, s.fee, s.description, s.redirect_url,
           s.status, s.chain, s.coin, s.state, s.version, s.expires_at,
           now() - g * interval '10 ms', now() - g * interval '10 ms'
    from generate_series(1, ${copies}) g join seed s on s.k = g % ${SEEDS}`;
  await sql`
    with seed as (select e.*, row_number() over (order by seq) - 1 as k from events e where merchant_id = ${merchantId})
    insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
    select 'evt_bench' || g, s.merchant_id, s.mode, s.type, s.payment_id, s.data, now() - g * interval '10 ms'
    from generate_series(1, ${copies}) g join seed s on s.k = g % ${SEEDS}`;
  await sql`analyze payments`;
  await sql`analyze events`;
}

/** `pages` pages deep, by every client at once; pages a second and CPU a page. */
async function measureReads(kind: "events" | "payments", key: string) {
  const pid = apiPid();
  const backends = (
    await sql<{ pid: number }[]>`select pid from pg_stat_activity where application_name = 'api'`
  ).map((r) => r.pid);
  const before = { api: cpuSeconds([pid]), pg: cpuSeconds(backends) };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      let after: string | undefined;
      for (let page = 0; page < pages; page++) {
        const list = await get(`/${kind}?limit=100${after ? `&starting_after=${after}` : ""}`, key);
        after = list.data.at(-1)?.id;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const n = CLIENTS * pages;
  const micros = (s: number) => ((s / n) * 1e6).toFixed(0);
  return `GET /${kind}?limit=100: ${(n / seconds).toFixed(0)} pages/s, API ${micros(cpuSeconds([pid]) - before.api)} µs, its backends ${micros(cpuSeconds(backends) - before.pg)} µs a page`;
}

/**
 * The whole export, read as it streams; the API's RSS sampled meanwhile. Idle is read the same
 * way before every export: 2 s after the round's reads (ordinary requests) ended.
 */
async function measureExport(key: string) {
  const pid = apiPid();
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMiB(pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 10);
  const started = performance.now();
  const cpuBefore = cpuSeconds([pid]);
  const rows = await new Promise<number>((resolve, reject) => {
    const url = new URL(`${cluster.apiUrl}/exports/payments.csv`);
    http
      .get(
        { host: url.hostname, port: url.port, path: url.pathname, headers: { "x-api-key": key } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`export: ${res.statusCode}`));
          let lineEnds = 0;
          res.on("data", (chunk: Buffer) => {
            for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lineEnds++;
          });
          // Descriptions carry no line break here: a record is a line; the first is the header.
          res.on("end", () => resolve(lineEnds - 1));
        },
      )
      .on("error", reject);
  });
  const seconds = (performance.now() - started) / 1000;
  const cpuMicros = ((cpuSeconds([pid]) - cpuBefore) / rows) * 1e6;
  clearInterval(sampler);
  if (rows !== count) throw new Error(`the export had ${rows} rows, not ${count}`);
  await new Promise((r) => setTimeout(r, 2000));
  const after = rssMiB(pid);
  return `GET /exports/payments.csv, ${rows} rows: ${(rows / seconds).toFixed(0)} rows/s (${seconds.toFixed(2)} s), API CPU ${cpuMicros.toFixed(1)} µs a row, RSS idle ${idle.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (+${(peak - idle).toFixed(0)} MiB), 2 s after ${after.toFixed(0)} MiB`;
}

try {
  const merchant = await createTestMerchant(sql, "Devtools Bench");
  await seed(merchant.testKey, merchant.merchantId);
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  say(
    `${new Date().toISOString()}; ${machineLine()}; load average ${load}; ${count} payments and events, ${CLIENTS} clients, ${pages} pages each`,
  );
  for (let round = 1; round <= rounds; round++) {
    const first = round % 2 === 1 ? (["events", "payments"] as const) : (["payments", "events"] as const);
    for (const kind of first) say(`round ${round}: ${await measureReads(kind, merchant.testKey)}`);
    say(`round ${round}: ${await measureExport(merchant.testKey)}`);
  }
  if (record) {
    writeKeepingNotes(
      new URL("./RESULTS-devtools.md", import.meta.url).pathname,
      `# Developer tools: events reads and CSV exports\n\nThe last recorded run (\`pnpm exec tsx bench/devtools-bench.ts --record\`):\n\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n\n`,
    );
  }
} finally {
  await sql.end();
  agent.destroy();
  await cluster.stop();
  removeClusterData(cluster);
}
