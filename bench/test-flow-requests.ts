// The API's CPU for each request of the test-mode flow, one request kind at a time: `count`
// payments created, then each given a wallet, then each simulated paid, then each read as the
// checkout page reads it; 16 clients on kept-alive connections, against the cluster as `npm start`
// runs it (the rate limit raised, as pipeline-bench does). Per kind: requests a second, the API
// process's CPU a request and its PostgreSQL backends'. Settlement and the notifier work on the
// simulated payments meanwhile, as in the pipeline. The first round warms up (fewer payments).
//   pnpm exec tsx bench/test-flow-requests.ts [count=3000] [rounds=2]
import { readdirSync } from "node:fs";
import http from "node:http";
import { createSql } from "../packages/db/src/index.js";
import { createTestMerchant } from "../services/api/test/merchant.js";
import { rawRequest } from "../test/fuzz/src/raw-request.js";
import { removeClusterData, startSoakCluster } from "../test/soak/src/cluster.js";
import { serviceOfProcess } from "./cluster-processes.js";
import { cpuSeconds, machineLine } from "./machine.js";

const count = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 2);
const CLIENTS = 16;

const cluster = await startSoakCluster({ logLevel: "warn" });
const sql = createSql({ url: cluster.databaseUrl, max: 2 });
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

async function call(
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<{ id?: string }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers["x-api-key"] = key;
  const { status, text } = await rawRequest(
    cluster.apiUrl,
    method,
    path,
    headers,
    body === undefined ? undefined : JSON.stringify(body),
    agent,
  );
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
  return JSON.parse(text) as { id?: string };
}

/** `request` for every item by 16 clients; the API's CPU and its backends' a request. */
async function measure(kind: string, items: string[], request: (item: string) => Promise<unknown>) {
  const apiPid = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .find((pid) => serviceOfProcess(pid) === "api");
  if (apiPid === undefined) throw new Error("no API process");
  const backends = (
    await sql<{ pid: number }[]>`select pid from pg_stat_activity where application_name = 'api'`
  ).map((r) => r.pid);
  const before = { api: cpuSeconds([apiPid]), pg: cpuSeconds(backends) };
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < items.length) await request(items[next++]!);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const micros = (s: number) => ((s / items.length) * 1e6).toFixed(0);
  return `${kind}: ${(items.length / seconds).toFixed(0)} req/s, API ${micros(cpuSeconds([apiPid]) - before.api)} µs, its backends ${micros(cpuSeconds(backends) - before.pg)} µs a request`;
}

try {
  const { testKey } = await createTestMerchant(sql, "Flow Bench");
  process.stdout.write(`${machineLine()}; ${CLIENTS} clients\n`);
  for (let round = 0; round <= rounds; round++) {
    const ids: string[] = [];
    const n = round === 0 ? Math.min(500, count) : count;
    const lines = [
      await measure("POST /payments", Array.from({ length: n }, String), async () => {
        const created = await call("POST", "/payments", testKey, { amount: "10.00", currency: "USD" });
        ids.push(String(created.id));
      }),
      await measure("POST …/generate-wallet", ids, (id) =>
        call("POST", `/payments/checkout/${id}/generate-wallet`, null, { chain: "solana", coin: "USDC" }),
      ),
      await measure("POST …/simulate", ids, (id) =>
        call("POST", `/payments/checkout/${id}/simulate`, null, { outcome: "paid" }),
      ),
      await measure("GET /payments/checkout/:id", ids, (id) => call("GET", `/payments/checkout/${id}`, null)),
    ];
    process.stdout.write(
      `${round === 0 ? "warm-up" : `round ${round}`}, ${n} payments\n  ${lines.join("\n  ")}\n`,
    );
  }
} finally {
  await sql.end();
  agent.destroy();
  await cluster.stop();
  removeClusterData(cluster);
}
