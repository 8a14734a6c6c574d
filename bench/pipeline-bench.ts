// The whole pipeline at increasing offered rates: the cluster as `npm start` runs it (started as
// the soak starts it, test/soak/src/cluster.ts), open-loop load of one flow at a time, each
// payment followed to its signed `payment.completed` webhook (verified with
// @gateway/webhook-signature):
// - test: create with the test key, generate-wallet, simulate paid;
// - solana / sui: create with the live key, generate-wallet (USDC), a customer's USDC transfer
//   on the local network from a customer wallet funded before the step (the local networks'
//   customer pools: one signed transfer a payment, so the customers cost this process, which
//   shares the cores with the cluster, well under a millisecond of CPU each).
// Per rate: offered, achieved, lost, wrong final state, duplicate deliveries, p50/p99 from the
// customer's action (simulate, or the transfer sent) to the final webhook and from create, CPU per payment by process; then pgbench's single-row INSERT rate on the same
// PostgreSQL before and after the load, in a throwaway database, and each rate as a share of
// their mean on the `pipeline:` line. `--quick` runs the test flow alone.
// `--pg-statements` loads pg_stat_statements into the cluster's PostgreSQL and prints, per step, the
// statements that took most of its execution time, with calls per completed payment.
//   pnpm exec tsx bench/pipeline-bench.ts [--quick] [--flows=test,solana,sui] [--rates=50,100] [--pg-statements] [--record]
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import { keepAliveFetch } from "../packages/chain-kit/src/keep-alive-fetch.js";
import { createSql, type Sql } from "../packages/db/src/index.js";
import { startWebhookReceiver } from "../packages/testkit/src/webhook-receiver.js";
import { verifyWebhook } from "../packages/webhook-signature/src/index.js";
// The modules themselves, not the packages' index files: those bring vitest, which needs its runner.
import { createTestMerchant } from "../services/api/test/merchant.js";
import { rawRequest } from "../test/fuzz/src/raw-request.js";
import { removeClusterData, type SoakCluster, startSoakCluster } from "../test/soak/src/cluster.js";
import { watchSolanaRegistrations } from "../test/soak/src/registration.js";
import {
  createSolanaCustomerPool,
  type SolanaCustomerPool,
} from "../test/solana-localnet/src/customer-pool.js";
import { createSuiCustomerPool, type SuiCustomerPool } from "../test/sui-localnet/src/customer-pool.js";
import { serviceOfProcess } from "./cluster-processes.js";
import { pgbenchInsertRate } from "./load-tools.js";
import { machineBusySeconds, machineLine, machineSplit, machineTicks, percentile } from "./machine.js";

const quick = process.argv.includes("--quick");
const pgStatements = process.argv.includes("--pg-statements");
// The cluster's runner reads it (scripts/local-cluster.ts); the child inherits this environment.
if (pgStatements) process.env["GATEWAY_PG_STAT_STATEMENTS"] = "1";
const record = process.argv.includes("--record");
type Flow = "test" | "solana" | "sui";
const flowsArgument = process.argv.find((arg) => arg.startsWith("--flows="))?.slice("--flows=".length);
const FLOWS: Flow[] = flowsArgument
  ? (flowsArgument.split(",").filter((flow) => ["test", "solana", "sui"].includes(flow)) as Flow[])
  : quick
    ? ["test"]
    : ["test", "solana", "sui"];
/** Offered payments per second, step by step; a flow stops at its first step that fails. */
const RATES: Record<Flow, number[]> = {
  // --quick climbs in larger steps to find the ceiling within its 120 s.
  test: quick
    ? [20, 50, 100, 200, 300, 400, 600, 800, 1000, 1400]
    : [10, 20, 40, 60, 80, 100, 120, 160, 200, 300, 400, 600, 800, 1000, 1400, 2000],
  solana: [1, 5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300],
  sui: [1, 5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300],
};
/** `--rates=50,100`: these offered rates for every flow run, instead of the ladders above. */
const ratesArgument = process.argv.find((arg) => arg.startsWith("--rates="))?.slice("--rates=".length);
if (ratesArgument) {
  const rates = ratesArgument.split(",").map(Number);
  if (rates.some((rate) => !(rate > 0))) throw new Error(`--rates: positive numbers, got ${ratesArgument}`);
  for (const flow of FLOWS) RATES[flow] = rates;
}
const STEP_SECONDS = quick ? 8 : 20;
/**
 * The issue's measure: a rate is sustained when it holds for 60 s. The full run climbs the ladder
 * in steps of STEP_SECONDS to find the ceiling, then offers the highest rate that passed for this
 * long, and each lower rate that passed in turn until one holds (trying only the top two reported
 * 0 for a flow whose late, loaded minutes failed both while a lower rate would have held);
 * `--quick` reports its ladder alone.
 * `--no-confirm` skips it, for a diagnosis.
 */
const CONFIRM_SECONDS = 60;
const confirm = !quick && !process.argv.includes("--no-confirm");
/** A payment not final this long after its step ended is lost. */
const GRACE_MS = 15_000;
const P99_GOAL_MS = 2_000;
const IDLE_SECONDS = 5;
/**
 * A flow stops at a loss, at this p99, or when it completes less than 90 % of what is offered;
 * `--quick` stops at the goal, to stay short.
 */
const STOP_P99_MS = quick ? P99_GOAL_MS : 10_000;
/** The share of the offered rate a step must complete to have kept up with it. */
const KEPT_UP = 0.9;

/** A payment the bench created and follows to its final webhook. */
interface OfferedPayment {
  createdAt: number;
  /** The customer's action: the simulate request or the transfer sent. */
  actedAt?: number;
  /** A Sui customer's transaction, for the checkpoint → payment.confirmed latency. */
  digest?: string;
  id?: string;
  completedAt?: number;
  completions: number;
  failed?: string;
}

interface Step {
  flow: Flow;
  offered: number;
  /** How long the load was offered. */
  seconds: number;
  /** A 60 s run at a rate the ladder passed (CONFIRM_SECONDS), whose result is the sustained rate. */
  confirmation: boolean;
  started: number;
  achieved: number;
  lost: number;
  wrongState: number;
  duplicates: number;
  badSignatures: number;
  /** From the customer's action to the final webhook (the goal's measure). */
  p50: number;
  p99: number;
  /** From the merchant's create to the final webhook. */
  p50FromCreate: number;
  p99FromCreate: number;
  /** Sui: from the checkpoint sealing the customer's transfer to payment.confirmed (PostgreSQL's clock). */
  confirmed?: { sampled: number; p50: number; p95: number };
  cpuPerPaymentMs: Record<string, number>;
  /** PostgreSQL's backends' CPU milliseconds per completed payment, by the service they serve. */
  postgresByService: Record<string, number>;
  /** Voluntary context switches per completed payment, by process (`wakeupsByProcess`). */
  wakeupsPerPayment: Record<string, number>;
  /** The machine's CPU while the load was offered (`machineSplit`). */
  machineCpu: string;
  /** PostgreSQL transactions committed per completed payment (pg_stat_database). */
  commitsPerPayment: number;
  /**
   * The whole machine's busy CPU milliseconds per completed payment, from the step's start to its
   * last payment (every process and the kernel; the idle work of the cluster included).
   */
  machineMsPerPayment: number;
  /** `--pg-statements`: the statements that took most of PostgreSQL's execution time. */
  statements?: StatementCost[];
  failures: string[];
  /**
   * Payments the step counted as lost (no customer failure, not finished within the grace): each
   * watched for up to LATE_MS more, so a slow tail reads apart from one that never finishes.
   */
  unfinished: string[];
  load: string;
}

// Sustained means kept up with: a step that finished well below what was offered only drained a
// backlog within the grace period (a short step's p99 can still be within the goal then).
function meetsGoal(s: Step): boolean {
  return (
    s.lost === 0 &&
    s.wrongState === 0 &&
    s.duplicates === 0 &&
    s.p99 <= P99_GOAL_MS &&
    s.achieved >= KEPT_UP * s.offered
  );
}

interface StatementCost {
  query: string;
  callsPerPayment: number;
  /** Execution time per payment, all calls together. */
  msPerPayment: number;
  rowsPerCall: number;
}

/** pg_stat_statements' counters start again (every database): called before each step. */
async function resetStatements(sql: Sql): Promise<void> {
  await sql`create extension if not exists pg_stat_statements`;
  await sql`select pg_stat_statements_reset()`;
}

async function topStatements(sql: Sql, payments: number): Promise<StatementCost[]> {
  const rows = await sql<{ query: string; calls: string; total_ms: number; rows: string }[]>`
    select query, calls::text, total_exec_time + total_plan_time as total_ms, rows::text from pg_stat_statements
    where query not like '%pg_stat_statements%' order by total_exec_time + total_plan_time desc limit 40`;
  return rows.map((r) => ({
    query: r.query.replace(/\s+/g, " ").slice(0, 160),
    callsPerPayment: Number(r.calls) / Math.max(payments, 1),
    msPerPayment: r.total_ms / Math.max(payments, 1),
    rowsPerCall: Number(r.rows) / Math.max(Number(r.calls), 1),
  }));
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function descendants(pid: number): number[] {
  try {
    const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number),
    );
    return children.flatMap((child) => [child, ...descendants(child)]);
  } catch {
    return [];
  }
}

/** utime + stime of a process, and (for PostgreSQL, whose backends come and go) its reaped children's. */
function cpuTicks(pid: number, withReaped: boolean): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const own = Number(fields[11]) + Number(fields[12]);
    return withReaped ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0;
  }
}

/** The cluster's processes by name: every service, PostgreSQL (with its backends) and NATS. */
function clusterProcesses(runnerPid: number): Map<string, number[]> {
  const named = new Map<string, number[]>();
  for (const pid of descendants(runnerPid)) {
    let name: string | undefined;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (command.includes("nats-server")) name = "nats";
      else if (/postgres/.test(readFileSync(`/proc/${pid}/comm`, "utf8"))) name = "postgres";
      else name = serviceOfProcess(pid);
    } catch {
      continue;
    }
    if (name) named.set(name, [...(named.get(name) ?? []), pid]);
  }
  return named;
}

/**
 * Times each process's main thread went to sleep and was woken (voluntary context switches;
 * PostgreSQL: every backend). On a VM a wake-up costs tens of microseconds of its own, so the
 * messages a payment makes between processes weigh by the wake-ups they cause.
 */
function wakeupsByProcess(processes: Map<string, number[]>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, known] of processes) {
    const pids = name === "postgres" ? postgresPids(processes) : known;
    out[name] = pids.reduce((sum, pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, "utf8");
        return sum + Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
      } catch {
        return sum;
      }
    }, 0);
  }
  return out;
}

/**
 * PostgreSQL's processes now: the postmaster (the first of them) and its children. Backends come
 * and go as the services' pools grow under load, so the list is read again at every reading; a
 * backend that ended meanwhile is in the postmaster's reaped children's time.
 */
function postgresPids(processes: Map<string, number[]>): number[] {
  const known = processes.get("postgres") ?? [];
  if (known.length === 0) return [];
  const postmaster = Math.min(...known);
  return [postmaster, ...descendants(postmaster)];
}

/** CPU ticks of each PostgreSQL backend now, by pid (`backendCpuByService` names their services). */
function backendTicks(processes: Map<string, number[]>): Map<number, number> {
  return new Map(postgresPids(processes).map((pid) => [pid, cpuTicks(pid, false)]));
}

/**
 * The CPU milliseconds PostgreSQL's backends spent per completed payment, by the application_name
 * of the service each serves (a backend that ended during the step is left out).
 */
async function backendCpuByService(
  sql: Sql,
  before: Map<number, number>,
  after: Map<number, number>,
  payments: number,
): Promise<Record<string, number>> {
  const names = new Map(
    (
      await sql<{ pid: number; name: string }[]>`
      select pid, application_name as name from pg_stat_activity where datname = current_database()`
    ).map((r) => [r.pid, r.name || "(none)"]),
  );
  const out: Record<string, number> = {};
  for (const [pid, ticks] of after) {
    const name = names.get(pid);
    if (!name) continue;
    out[name] = (out[name] ?? 0) + ((ticks - (before.get(pid) ?? 0)) * 10) / Math.max(payments, 1);
  }
  return out;
}

function cpuSecondsByProcess(processes: Map<string, number[]>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, known] of processes) {
    const pids = name === "postgres" ? postgresPids(processes) : known;
    out[name] = pids.reduce((sum, pid) => sum + cpuTicks(pid, name === "postgres"), 0) / 100;
  }
  // This process: the customers' requests and the merchant's webhook receiver, on the same cores.
  const own = process.cpuUsage();
  out["load-generator"] = (own.user + own.system) / 1e6;
  return out;
}

interface Merchant {
  testKey: string;
  liveKey: string;
}

async function runStep(options: {
  flow: Flow;
  rate: number;
  seconds: number;
  confirmation: boolean;
  apiUrl: string;
  merchant: Merchant;
  sql: Sql;
  byId: Map<string, OfferedPayment>;
  processes: Map<string, number[]>;
  counters: { duplicates: number; badSignatures: number };
  customers: Customers;
  solanaRegistered(address: string): Promise<void>;
}): Promise<Step> {
  const { flow, rate, apiUrl, merchant, sql, byId } = options;
  const load = loadAverage();
  const duplicatesBefore = options.counters.duplicates;
  const badBefore = options.counters.badSignatures;
  const total = Math.round(rate * options.seconds);
  // Sui wallets pay once each: funded before the step, outside its CPU and time.
  const suiPool = options.customers.sui;
  if (flow === "sui" && suiPool) await suiPool.prepare(total - suiPool.ready);
  if (pgStatements) await resetStatements(sql);
  const cpuBefore = cpuSecondsByProcess(options.processes);
  const machineBefore = machineBusySeconds();
  const backendsBefore = backendTicks(options.processes);
  const wakeupsBefore = wakeupsByProcess(options.processes);
  const commitsBefore = await committed(sql);
  const payments: OfferedPayment[] = [];
  const call = async (method: string, url: string, key: string | null, body: unknown) => {
    const { status, text } = await httpCall(apiUrl, url, method, key, JSON.stringify(body));
    if (status < 200 || status >= 300)
      throw new Error(`${method} ${url.replace(/[0-9a-f-]{36}/, ":id")}: ${status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const one = async (payment: OfferedPayment) => {
    try {
      const key = flow === "test" ? merchant.testKey : merchant.liveKey;
      const amount = flow === "test" ? "10.00" : "1.00";
      const created = await call("POST", "/payments", key, { amount, currency: "USD" });
      payment.id = String(created.id);
      byId.set(payment.id, payment);
      const chain = flow === "sui" ? "sui" : "solana";
      const wallet = await call("POST", `/payments/checkout/${payment.id}/generate-wallet`, null, {
        chain,
        coin: "USDC",
      });
      if (flow === "test") {
        payment.actedAt = Date.now();
        await call("POST", `/payments/checkout/${payment.id}/simulate`, null, { outcome: "paid" });
        return;
      }
      const address = String(wallet.address);
      // Paying before the watcher registered the address would leave it to reconciliation.
      if (flow === "solana") await options.solanaRegistered(address);
      payment.actedAt = Date.now();
      const sent = await options.customers[flow]!.pay(address, toBaseUnits(String(wallet.amount), 6));
      if (flow === "sui") payment.digest = sent;
    } catch (err) {
      payment.failed = err instanceof Error ? err.message : String(err);
    }
  };
  // Open loop: each payment starts at its due time whatever the earlier ones are doing.
  const started = performance.now();
  const ticksAtStart = machineTicks();
  const running: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const payment: OfferedPayment = { createdAt: Date.now(), completions: 0 };
    payments.push(payment);
    running.push(one(payment));
  }
  const machineCpu = machineSplit(ticksAtStart);
  await Promise.all(running);
  const deadline = Date.now() + GRACE_MS;
  while (Date.now() < deadline && payments.some((p) => !p.failed && p.completedAt === undefined))
    await sleep(100);
  const cpuAfter = cpuSecondsByProcess(options.processes);
  const machineAfter = machineBusySeconds();
  const backendsAfter = backendTicks(options.processes);
  const wakeupsAfter = wakeupsByProcess(options.processes);
  const commitsAfter = await committed(sql);

  const completed = payments.filter((p) => p.completedAt !== undefined);
  const late = payments.filter((p) => !p.failed && p.completedAt === undefined);
  const statements = pgStatements ? await topStatements(sql, completed.length) : undefined;
  const postgresByService = await backendCpuByService(sql, backendsBefore, backendsAfter, completed.length);
  const statuses = await statusesOf(sql, payments);
  const wrongState = [...statuses.values()].filter((status) => status !== "completed").length;
  const unfinished = await followLate(sql, late);
  const confirmed =
    flow === "sui" && suiPool ? await checkpointToConfirmed(sql, suiPool, payments) : undefined;
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  const latencies = sorted(completed.map((p) => p.completedAt! - (p.actedAt ?? p.createdAt)));
  const fromCreate = sorted(completed.map((p) => p.completedAt! - p.createdAt));
  // The rate the pipeline finished payments at: completions over the time between the first
  // and the last. (Counting from the first create would charge one latency to a 20 s step, so a
  // slow but keeping-up flow would look short of its rate.)
  const doneTimes = completed.map((p) => p.completedAt!);
  const completionSpan = (Math.max(...doneTimes) - Math.min(...doneTimes)) / 1000;
  const wakeupsPerPayment: Record<string, number> = {};
  for (const name of Object.keys(wakeupsAfter))
    wakeupsPerPayment[name] = completed.length
      ? (wakeupsAfter[name]! - (wakeupsBefore[name] ?? 0)) / completed.length
      : Number.NaN;
  const cpuPerPaymentMs: Record<string, number> = {};
  for (const name of Object.keys(cpuAfter)) {
    cpuPerPaymentMs[name] = completed.length
      ? ((cpuAfter[name]! - (cpuBefore[name] ?? 0)) * 1000) / completed.length
      : Number.NaN;
  }
  return {
    flow,
    offered: rate,
    seconds: options.seconds,
    confirmation: options.confirmation,
    started: payments.length,
    achieved: completed.length > 1 && completionSpan > 0 ? (completed.length - 1) / completionSpan : 0,
    lost: payments.length - completed.length,
    wrongState,
    duplicates: options.counters.duplicates - duplicatesBefore,
    badSignatures: options.counters.badSignatures - badBefore,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p50FromCreate: percentile(fromCreate, 50),
    p99FromCreate: percentile(fromCreate, 99),
    ...(confirmed ? { confirmed } : {}),
    cpuPerPaymentMs,
    postgresByService,
    wakeupsPerPayment,
    machineCpu,
    commitsPerPayment: completed.length ? (commitsAfter - commitsBefore) / completed.length : Number.NaN,
    machineMsPerPayment: completed.length
      ? ((machineAfter - machineBefore) * 1000) / completed.length
      : Number.NaN,
    ...(statements ? { statements } : {}),
    failures: [...new Set(payments.flatMap((p) => (p.failed ? [p.failed] : [])))].slice(0, 5),
    unfinished,
    load,
  };
}

/** The payments' statuses now, by id (payments never created have none). */
async function statusesOf(sql: Sql, payments: OfferedPayment[]): Promise<Map<string, string>> {
  const ids = payments.flatMap((p) => (p.id ? [p.id] : []));
  const rows = ids.length
    ? await sql<{ id: string; status: string }[]>`select id, status from payments where id = any(${ids})`
    : [];
  return new Map(rows.map((r) => [r.id, r.status]));
}

const LATE_MS = 60_000;

/** What became of payments still unfinished after the grace: finished later, or their status. */
async function followLate(sql: Sql, late: OfferedPayment[]): Promise<string[]> {
  if (late.length === 0) return [];
  const until = Date.now() + LATE_MS;
  while (Date.now() < until && late.some((p) => p.completedAt === undefined)) await sleep(200);
  const status = await statusesOf(sql, late);
  return late.slice(0, 5).map((p) => {
    const since = p.actedAt ?? p.createdAt;
    if (p.completedAt !== undefined)
      return `${p.id} finished ${p.completedAt - since} ms after the customer's action`;
    return `${p.id ?? "(never created)"} still ${status.get(p.id ?? "") ?? "unknown"} ${Math.round((Date.now() - since) / 1000)} s after the customer's action`;
  });
}

/**
 * Transactions committed in the cluster's database so far. A backend reports its counts at most
 * once a second while busy (and within 10 s once idle), so a step's figure is off by about a
 * second's worth at each end; steps of similar load carry similar errors.
 */
async function committed(sql: Sql): Promise<number> {
  const [row] = await sql<{ commits: bigint }[]>`
    select xact_commit as commits from pg_stat_database where datname = current_database()`;
  return Number(row?.commits ?? 0);
}

/**
 * The issue's Sui goal under load: from the checkpoint that sealed each customer's transfer (final
 * on Sui) to the payment.confirmed event's row, for up to 200 of the step's payments spread over
 * it. Read after the step, outside its CPU figures.
 */
async function checkpointToConfirmed(sql: Sql, pool: SuiCustomerPool, payments: OfferedPayment[]) {
  const paid = payments.filter((p) => p.id && p.digest);
  const every = Math.max(1, Math.floor(paid.length / 200));
  const sample = paid.filter((_, i) => i % every === 0).slice(0, 200);
  if (sample.length === 0) return undefined;
  const events = await sql<{ payment_id: string; created_at: Date }[]>`
    select payment_id, created_at from events
    where type = 'payment.confirmed' and payment_id = any(${sample.map((p) => p.id!)})`;
  const confirmedAt = new Map(events.map((e) => [e.payment_id, e.created_at.getTime()]));
  const lags: number[] = [];
  for (const payment of sample) {
    const at = confirmedAt.get(payment.id!);
    if (at !== undefined) lags.push(at - (await pool.sealedAt(payment.digest!)));
  }
  lags.sort((a, b) => a - b);
  return { sampled: lags.length, p50: percentile(lags, 50), p95: percentile(lags, 95) };
}

/**
 * The customers' requests through node:http with kept-alive connections: `fetch` costs this
 * process several times the CPU per request, and it shares the cores with the cluster it measures.
 * Idle connections are left after 30 s, before the API's keep-alive (65 s) ends them, so a burst
 * never reaches for a connection the API is closing (test/soak/src/load.ts).
 */
const customerAgent = new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 });
function httpCall(apiUrl: string, path: string, method: string, key: string | null, body: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers["x-api-key"] = key;
  return rawRequest(apiUrl, method, path, headers, body, customerAgent);
}

/** A decimal amount of a 6-decimal coin in base units, as bigint. */
function toBaseUnits(decimal: string, decimals: number): bigint {
  const [whole = "0", fraction = ""] = decimal.split(".");
  if (fraction.length > decimals) throw new Error(`${decimal} has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

interface Customers {
  solana?: SolanaCustomerPool;
  sui?: SuiCustomerPool;
}

/** The pools of the live flows this run offers: a test-only run funds no wallets. */
async function customersFor(cluster: SoakCluster): Promise<Customers> {
  return {
    ...(FLOWS.includes("solana")
      ? { solana: await createSolanaCustomerPool({ rpcUrl: cluster.solanaRpcUrl, wallets: 32 }) }
      : {}),
    ...(FLOWS.includes("sui")
      ? { sui: await createSuiCustomerPool({ url: cluster.suiUrl, fetch: keepAliveFetch }) }
      : {}),
  };
}

const benchStarted = performance.now();
const loadAtStart = loadAverage();
process.stdout.write(`starting the cluster (load ${loadAtStart})\n`);
const cluster = await startSoakCluster({ logLevel: process.env["PIPELINE_LOG_LEVEL"] ?? "warn" });
const sql = createSql({ url: cluster.databaseUrl, max: 4 });
const steps: Step[] = [];
const idleMsPerSecond: Record<string, number> = {};
// pgbench before and after the load, and their mean: one machine swung between 11k and 25k tps
// within an hour, and the ratio to it is what compares across machines.
let pgbenchBefore = Number.NaN;
let pgbenchAfter = Number.NaN;
/** pgbench's single-row INSERT rate on the cluster's PostgreSQL, in a throwaway database. */
async function pgbenchOnCluster(): Promise<number> {
  const throwaway = `pgbench_${process.pid}`;
  await sql.unsafe(`create database ${throwaway}`);
  const url = new URL(cluster.databaseUrl);
  url.pathname = `/${throwaway}`;
  const pgSql = createSql({ url: url.toString(), max: 1 });
  try {
    return await pgbenchInsertRate(pgSql, url.toString(), 16, quick ? 5 : 10);
  } finally {
    await pgSql.end();
    await sql.unsafe(`drop database ${throwaway} with (force)`);
  }
}
try {
  pgbenchBefore = await pgbenchOnCluster();
  const merchant = await createTestMerchant(sql, "Pipeline Bench");
  const byId = new Map<string, OfferedPayment>();
  const counters = { duplicates: 0, badSignatures: 0 };
  const completedEvents = new Set<string>();
  const secrets: Record<string, string> = {};
  const receiver = await startWebhookReceiver(
    (request) => {
      let event: { id: string; type: string; data: { payment?: { id: string } } };
      try {
        event = verifyWebhook({
          payload: request.body,
          header: request.headers["x-gateway-signature"],
          secret: secrets[request.path.endsWith("/live") ? "live" : "test"] ?? "",
        }) as typeof event;
      } catch {
        counters.badSignatures++;
        return { status: 400 };
      }
      if (event.type !== "payment.completed") return { status: 200 };
      const redelivery = completedEvents.has(event.id);
      completedEvents.add(event.id);
      const payment = event.data.payment ? byId.get(event.data.payment.id) : undefined;
      if (redelivery) counters.duplicates++;
      else if (payment) {
        // A second payment.completed for one payment, under another event id, is a duplicate too.
        payment.completions++;
        if (payment.completions > 1) counters.duplicates++;
        payment.completedAt ??= request.receivedAt;
      }
      return { status: 200 };
    },
    { record: false },
  );
  for (const mode of ["test", "live"] as const) {
    const hook = await fetch(`${cluster.apiUrl}/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": mode === "test" ? merchant.testKey : merchant.liveKey,
      },
      body: JSON.stringify({ url: `${receiver.url}/${mode}`, is_test: mode === "test" }),
    });
    if (!hook.ok) throw new Error(`POST /webhooks: ${hook.status} ${await hook.text()}`);
    secrets[mode] = String(((await hook.json()) as { secret: string }).secret);
  }
  const processes = clusterProcesses(cluster.runnerPid);
  // Polled every 100 ms: the wait is part of each Solana payment's latency.
  const registrations = watchSolanaRegistrations(cluster.solanaRpcUrl, 100);
  const customers = await customersFor(cluster);
  // What every process spends with no payment at all (polling, health checks, price refresh):
  // part of each step's CPU per payment, and the larger part at low rates.
  const idleStart = cpuSecondsByProcess(processes);
  await sleep(IDLE_SECONDS * 1000);
  const idleEnd = cpuSecondsByProcess(processes);
  for (const name of Object.keys(idleEnd))
    idleMsPerSecond[name] = ((idleEnd[name]! - (idleStart[name] ?? 0)) * 1000) / IDLE_SECONDS;
  process.stdout.write(
    `cluster up in ${((performance.now() - benchStarted) / 1000).toFixed(1)} s; processes: ${[...processes.keys()].join(", ")}\n`,
  );

  const offer = async (flow: Flow, rate: number, seconds: number, confirmation: boolean) => {
    const step = await runStep({
      flow,
      rate,
      seconds,
      confirmation,
      apiUrl: cluster.apiUrl,
      merchant,
      sql,
      byId,
      processes,
      counters,
      customers,
      solanaRegistered: (address) => registrations.registered(address),
    });
    steps.push(step);
    process.stdout.write(
      `${flow} offered ${rate}/s for ${seconds} s${confirmation ? " (confirmation)" : ""}: achieved ${step.achieved.toFixed(1)}/s, lost ${step.lost}, wrong ${step.wrongState}, dup ${step.duplicates}, p50 ${step.p50} ms, p99 ${step.p99} ms (from create ${step.p50FromCreate} / ${step.p99FromCreate} ms)${step.confirmed ? `, checkpoint → confirmed p50 ${step.confirmed.p50} / p95 ${step.confirmed.p95} ms` : ""} (load ${step.load}; machine CPU % user / system / softirq / idle ${step.machineCpu})${step.failures.length ? `; failures: ${step.failures.join(" | ")}` : ""}${step.unfinished.length ? `; unfinished: ${step.unfinished.join(" | ")}` : ""}\n`,
    );
    return step;
  };
  for (const flow of FLOWS) {
    for (const rate of RATES[flow]) {
      const step = await offer(flow, rate, STEP_SECONDS, false);
      // Past saturation every further step only queues more. A p99 over the goal alone does not
      // stop a flow: the next steps show how far the rate still holds without a loss.
      if (step.lost > 0 || step.p99 > STOP_P99_MS || step.achieved < KEPT_UP * rate) break;
    }
    if (!confirm) continue;
    const passed = steps.filter((st) => st.flow === flow && meetsGoal(st)).map((st) => st.offered);
    for (const rate of [...new Set(passed)].sort((a, b) => b - a)) {
      if (meetsGoal(await offer(flow, rate, CONFIRM_SECONDS, true))) break;
    }
  }
  registrations.stop();
  customers.solana?.close();
  await receiver.close();

  pgbenchAfter = await pgbenchOnCluster();
} finally {
  await sql.end();
  await cluster.stop();
  if (process.env["PIPELINE_KEEP_LOGS"]) process.stdout.write(`cluster data kept in ${cluster.dataDir}\n`);
  else removeClusterData(cluster);
}

/**
 * The highest offered rate kept up with, nothing lost and p99 within the goal (in a full run, over
 * the 60 s confirmation); "-" for a flow not run.
 */
function sustained(flow: Flow): string {
  if (!FLOWS.includes(flow)) return "-";
  const met = steps
    .filter((s) => s.flow === flow && s.confirmation === confirm && meetsGoal(s))
    .map((s) => s.offered);
  return String(met.length ? Math.max(...met) : 0);
}
/** A step's offered rate, marked when it is a confirmation run. */
const offeredLabel = (s: Step) => `${s.offered}${s.confirmation ? ` (${s.seconds} s)` : ""}`;
const names = [...new Set(steps.flatMap((s) => Object.keys(s.cpuPerPaymentMs)))].sort();
const seconds = ((performance.now() - benchStarted) / 1000).toFixed(0);
const pgbench = (pgbenchBefore + pgbenchAfter) / 2;
/** A sustained rate as a share of pgbench's: "1/151" is one payment for 151 single-row inserts. */
const share = (flow: Flow) => {
  const rate = Number(sustained(flow));
  return rate > 0 ? ` (1/${Math.round(pgbench / rate)})` : "";
};
const summary = `pipeline: test ${sustained("test")}/s${share("test")}, solana ${sustained("solana")}/s${share("solana")}, sui ${sustained("sui")}/s${share("sui")} sustained; pgbench ${pgbench.toFixed(0)} tps (mean of ${pgbenchBefore.toFixed(0)} before and ${pgbenchAfter.toFixed(0)} after the load)`;
let out = `\n## ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, pipeline-bench${quick ? " --quick" : ""} (${seconds} s in all)\n\n`;
out += `Machine: ${machineLine()}. Load average 1/5/15 min at the start: ${loadAtStart}; at each step in the table.\n`;
out += `Flows: ${FLOWS.join(", ")}${quick ? " (--quick: live Solana and Sui not run)" : ""}; ${STEP_SECONDS} s of open-loop load per rate, then ${GRACE_MS / 1000} s for the last payments to finish${confirm ? `; then the highest rate that passed (or, failing, each lower one that passed, in turn) offered again for ${CONFIRM_SECONDS} s, the sustained rate being the one that passes that` : ""}; a flow stops at its first step with a loss, a p99 above ${STOP_P99_MS} ms or less than 90 % of the offered rate achieved; sustained: the highest offered rate with nothing lost, no wrong state, no duplicate, at least ${KEPT_UP * 100} % of it completed and p99 ≤ ${P99_GOAL_MS} ms from the customer's action (simulate, or the transfer sent) to the signed \`payment.completed\`. Customers: live ones pay from wallets funded before the step (the local networks' customer pools).\n\n`;
out +=
  "| flow | offered /s | s | started | achieved /s | lost | wrong final state | duplicate deliveries | bad signatures | p50 ms | p99 ms | p50 / p99 ms from create | load | machine CPU % while offered: user / system / softirq / idle |\n| - | - | - | - | - | - | - | - | - | - | - | - | - | - |\n";
for (const s of steps) {
  out += `| ${s.flow} | ${s.offered} | ${s.seconds}${s.confirmation ? " (confirmation)" : ""} | ${s.started} | ${s.achieved.toFixed(1)} | ${s.lost} | ${s.wrongState} | ${s.duplicates} | ${s.badSignatures} | ${s.p50} | ${s.p99} | ${s.p50FromCreate} / ${s.p99FromCreate} | ${s.load} | ${s.machineCpu} |\n`;
}
out += `\nCPU milliseconds per completed payment, by process (PostgreSQL: postmaster, backends and reaped children; load-generator: this bench process, the customers and the webhook receiver). Each step's figure is all the CPU the process used during the step divided by the payments completed, so it includes the process's idle work (first row, measured for ${IDLE_SECONDS} s before the load), which weighs most at low rates. The last two columns: PostgreSQL transactions committed per completed payment (pg_stat_database, by every process; about a second's worth uncertain at each end of a step), and the whole machine's busy CPU milliseconds per completed payment (/proc/stat: every process and the kernel):\n\n| flow | offered /s | ${names.join(" | ")} | PostgreSQL commits | machine, all cores |\n|${" - |".repeat(names.length + 4)}\n`;
out += `| idle, CPU ms per second | | ${names.map((n) => (idleMsPerSecond[n] ?? Number.NaN).toFixed(1)).join(" | ")} | | |\n`;
for (const s of steps)
  out += `| ${s.flow} | ${offeredLabel(s)} | ${names.map((n) => (s.cpuPerPaymentMs[n] ?? Number.NaN).toFixed(2)).join(" | ")} | ${s.commitsPerPayment.toFixed(1)} | ${s.machineMsPerPayment.toFixed(2)} |\n`;
const served = [...new Set(steps.flatMap((s) => Object.keys(s.postgresByService)))].sort();
out += `\nPostgreSQL's backends' CPU milliseconds per completed payment, by the service they serve (their application_name):\n\n| flow | offered /s | ${served.join(" | ")} |\n|${" - |".repeat(served.length + 2)}\n`;
for (const s of steps)
  out += `| ${s.flow} | ${offeredLabel(s)} | ${served.map((n) => (s.postgresByService[n] ?? 0).toFixed(2)).join(" | ")} |\n`;
const woken = [...new Set(steps.flatMap((s) => Object.keys(s.wakeupsPerPayment)))].sort();
out += `\nWake-ups per completed payment, by process (voluntary context switches of the main thread; PostgreSQL: its backends):\n\n| flow | offered /s | ${woken.join(" | ")} |\n|${" - |".repeat(woken.length + 2)}\n`;
for (const s of steps)
  out += `| ${s.flow} | ${offeredLabel(s)} | ${woken.map((n) => (s.wakeupsPerPayment[n] ?? Number.NaN).toFixed(1)).join(" | ")} |\n`;
const failures = steps.flatMap((s) =>
  [...s.failures, ...s.unfinished.map((u) => `unfinished after the grace: ${u}`)].map(
    (f) => `- ${s.flow} at ${s.offered}/s: ${f}`,
  ),
);
if (failures.length) out += `\nFailures seen:\n${failures.join("\n")}\n`;
for (const s of steps.filter((step) => step.statements)) {
  out += `\nPostgreSQL's statements at ${s.flow} ${s.offered}/s (pg_stat_statements, by planning and execution time; per completed payment):\n\n| ms | calls | rows a call | statement |\n| - | - | - | - |\n`;
  for (const st of s.statements!)
    out += `| ${st.msPerPayment.toFixed(3)} | ${st.callsPerPayment.toFixed(2)} | ${st.rowsPerCall.toFixed(1)} | \`${st.query.replaceAll("|", "\\|").replaceAll("`", "'")}\` |\n`;
}
const suiSteps = steps.filter((s) => s.confirmed);
if (suiSteps.length) {
  out += `\nSui, from the checkpoint that sealed the customer's transfer to the payment.confirmed event (up to 200 payments a step; goal: one checkpoint interval + 100 ms):\n\n| offered /s | payments | p50 ms | p95 ms |\n| - | - | - | - |\n`;
  for (const s of suiSteps)
    out += `| ${s.offered} | ${s.confirmed!.sampled} | ${s.confirmed!.p50} | ${s.confirmed!.p95} |\n`;
}
out += `\npgbench single-row INSERT, 16 clients, same PostgreSQL: ${pgbenchBefore.toFixed(0)} tps before the load, ${pgbenchAfter.toFixed(0)} after, mean ${pgbench.toFixed(0)}; each sustained rate's share of it in brackets.\n\n\`${summary}\`\n`;
process.stdout.write(out);
if (record) appendFileSync(new URL("./RESULTS-pipeline.md", import.meta.url), out);
process.stdout.write(`${summary}\n`);
