// The soak: the whole cluster as `npm start` runs it, a short closed-loop probe that measures
// what it completes per second, then steady open-loop load at half of that for the run's length,
// sampled at a fixed period; at the end every payment must be final and every event delivered.
// The live customers pay from wallets funded ahead (customers.ts), so the driver, on the same
// cores as the cluster, costs little per payment and the probe finds the system's capacity.
import { copyFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createSql } from "@gateway/db";
import { removeClusterData, startSoakCluster } from "./cluster.js";
import { createCustomers, SOLANA_WALLETS, suiReserveFor } from "./customers.js";
import { createLatencyWindows, type Percentiles } from "./latency.js";
import { createSoakLoad, KINDS, type Kind, type LoadCounters } from "./load.js";
import { type BackendGroup, backendsByApplication } from "./postgres-backends.js";
import { anonBytesReadIn, clusterMemory } from "./process-memory.js";
import { watchSolanaRegistrations } from "./registration.js";
import { sharedCell } from "./report.js";
import { liveHeapsOf, readMetricsTexts } from "./service-metrics.js";
import { parseSignerMetrics, type SignerState } from "./signer-state.js";
import { createGaugeReader, type QueueGauges } from "./system-gauges.js";
import { type Check, judge, type Sample } from "./verdict.js";

export interface SoakOptions {
  seconds: number;
  sampleSeconds: number;
  /** Length of the closed-loop capacity probe; skipped for kinds whose rate is given. */
  probeSeconds: number;
  /** Payments per second by kind; a kind left out gets half of its probed capacity. */
  rates?: Partial<Record<Kind, number>>;
  /** Closed-loop workers per kind during the probe. */
  probeWorkers?: Record<Kind, number>;
  /** How long to wait at the end for in-flight payments and queues to empty. */
  drainSeconds?: number;
  say?: (line: string) => void;
}

export interface SampleRow extends Sample {
  started: Record<Kind, number>;
  finished: Record<Kind, number>;
  inFlight: number;
  openPayments: number;
  byConsumer: Record<string, number>;
  driverBytes: number;
  /** The driver's CPU over the window, in cores (customers, merchant and webhook receiver). */
  driverCores: number;
  /** Sui pays in the window that found no funded wallet and waited for the refill. */
  suiWalletWaits: number;
  /** The driver's longest event-loop delay in the window, in ms: every request in flight then
   * counts it in its latency, so a window's slowest requests are read beside it. */
  driverDelayMs?: number;
  /** The signer's ledger and heap at the sample, when its /metrics answered. */
  signer?: SignerState;
  /** PostgreSQL's backends by the service that opened them: connections and their own memory. */
  postgresBackends?: Record<string, BackendGroup>;
}

export interface SoakResult {
  startedAt: Date;
  seconds: number;
  sampleSeconds: number;
  probe: {
    seconds: number;
    workers: Record<Kind, number>;
    completedPerSecond: Partial<Record<Kind, number>>;
    /** The driver's CPU over the counted part, in cores. */
    driverCores: number;
    /** Sui pays that waited for a funded wallet during the counted part (0: the customers kept up). */
    suiWalletWaits: number;
  };
  rates: Record<Kind, { rate: number; source: "probe" | "env" }>;
  samples: SampleRow[];
  checks: Check[];
  endChecks: Check[];
  counters: LoadCounters;
  final: { memory: Record<string, number>; queues: QueueGauges; drainedSeconds: number };
  loadAverage: { start: number[]; end: number[] };
  clusterLog: string;
}

/**
 * Enough closed-loop workers to saturate the two cores with every kind at once. A worker's cycle
 * is its payment's whole life: unloaded, well under 0.1 s for a test payment; for a live one the
 * 1–1.5 s from the transfer to the final webhook plus the API calls, and for Solana the 1–2 s
 * until the watcher has registered the new address. So 48 Solana workers could complete 14–20/s,
 * 32 Sui workers 20–30/s and 32 test workers hundreds, more than the cores carry: they are full
 * at about 35–40 live payments a second alone (bench/RESULTS-pipeline.md: 50 ms of CPU
 * each). The probe ends saturated, every kind's cycle stretched to seconds by queueing.
 */
const DEFAULT_WORKERS: Record<Kind, number> = { test: 32, solana: 48, sui: 32 };
/**
 * A Sui payment's cycle (two API calls, the transfer, a 250 ms checkpoint, settlement, the sweep
 * and the webhook) takes at least about 0.7 s, so a probe worker pays at most 1.5 times a second.
 */
const SUI_PAYS_PER_WORKER_SECOND = 1.5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The driver's CPU time so far, in seconds. */
const driverCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const say = options.say ?? (() => {});
  const startedAt = new Date();
  const loadStart = os.loadavg();
  say("starting the cluster (scripts/local-cluster.ts)");
  const cluster = await startSoakCluster();
  const clusterLog = path.join(os.tmpdir(), `gw-soak-${startedAt.toISOString().replace(/[:.]/g, "-")}.log`);
  const sql = createSql({ url: cluster.databaseUrl, max: 4 });
  const gauges = await createGaugeReader({ sql, natsUrl: cluster.natsUrl });
  // Polled every 100 ms: the wait is part of each Solana payment's cycle in the probe.
  const registrations = watchSolanaRegistrations(cluster.solanaRpcUrl, 100);
  const latency = createLatencyWindows();
  let customers: Awaited<ReturnType<typeof createCustomers>> | undefined;
  try {
    say(`cluster up: API ${cluster.apiUrl}, data in ${cluster.dataDir}`);
    const workers = options.probeWorkers ?? DEFAULT_WORKERS;
    const probed = KINDS.filter((kind) => options.rates?.[kind] === undefined);
    const givenSui = options.rates?.sui;
    customers = await createCustomers({
      solanaRpcUrl: cluster.solanaRpcUrl,
      suiUrl: cluster.suiUrl,
      suiReserve: suiReserveFor(givenSui ?? workers.sui * SUI_PAYS_PER_WORKER_SECOND),
    });
    const sui = customers.sui;
    await sui.filled();
    say(`customers funded: ${SOLANA_WALLETS} Solana wallets, ${sui.ready} Sui wallets prepared`);
    const load = await createSoakLoad({
      apiUrl: cluster.apiUrl,
      sql,
      latency,
      payers: { solana: customers.solana, sui },
      solanaRegistered: (address) => registrations.registered(address),
    });
    const { counters } = load;

    // Capacity probe: closed loop, every kind at once, as the soak will run them.
    const completedPerSecond: Partial<Record<Kind, number>> = {};
    let probeCores = 0;
    let probeWaits = 0;
    if (probed.length > 0) {
      say(`capacity probe: ${options.probeSeconds} s closed loop, workers ${JSON.stringify(workers)}`);
      // The first third of the probe warms the cluster up (JIT, pools, the watchers' first
      // registrations); completions are counted over the rest.
      const probeStart = Date.now();
      const probeEnd = probeStart + options.probeSeconds * 1000;
      const loops = probed.flatMap((kind) =>
        Array.from({ length: workers[kind] }, async () => {
          while (Date.now() < probeEnd) await load.run(kind);
        }),
      );
      let before = { ...counters.finished };
      let cpuBefore = driverCpuSeconds();
      let waitsBefore = sui.waits;
      let last = { ...counters.finished };
      let cpuLast = cpuBefore;
      for (let n = 1; n * 5 <= options.probeSeconds; n++) {
        await sleep(Math.max(0, probeStart + n * 5000 - Date.now()));
        const cpu = driverCpuSeconds();
        if (n * 5 <= options.probeSeconds / 3) {
          before = { ...counters.finished };
          cpuBefore = cpu;
          waitsBefore = sui.waits;
        }
        const window = latency.drain();
        say(
          `probe t=${n * 5}s finished ${JSON.stringify(delta(counters.finished, last))}, driver ${((cpu - cpuLast) / 5).toFixed(2)} cores, Sui wallet waits ${sui.waits}; p50/p99 ms ${Object.entries(
            window,
          )
            .map(([op, p]) => `${op} ${p.p50.toFixed(0)}/${p.p99.toFixed(0)}`)
            .join(", ")}`,
        );
        last = { ...counters.finished };
        cpuLast = cpu;
      }
      await sleep(Math.max(0, probeEnd - Date.now()));
      const after = { ...counters.finished };
      const counted = options.probeSeconds - Math.floor(options.probeSeconds / 3 / 5) * 5;
      probeCores = (driverCpuSeconds() - cpuBefore) / counted;
      probeWaits = sui.waits - waitsBefore;
      await Promise.all(loops);
      for (const kind of probed) completedPerSecond[kind] = (after[kind] - before[kind]) / counted;
      say(
        `probe: completed per second over its last ${counted} s ${JSON.stringify(completedPerSecond)}; driver ${probeCores.toFixed(2)} cores; ${probeWaits} Sui pays waited for a funded wallet`,
      );
      latency.drain();
    }
    const rates = Object.fromEntries(
      KINDS.map((kind) => {
        const given = options.rates?.[kind];
        if (given !== undefined) return [kind, { rate: given, source: "env" as const }];
        const half = Math.max(0.1, Math.round(((completedPerSecond[kind] ?? 0) / 2) * 10) / 10);
        return [kind, { rate: half, source: "probe" as const }];
      }),
    ) as SoakResult["rates"];
    // A reserve of a few seconds of the steady rate, prepared before the load starts.
    sui.setReserve(suiReserveFor(rates.sui.rate));
    await sui.filled();
    say(`steady load for ${options.seconds} s: ${KINDS.map((k) => `${k} ${rates[k].rate}/s`).join(", ")}`);

    // Open loop: payments start on a schedule whatever the system's answers, so a slowing system
    // shows as growing queues and latency rather than as a lower offered rate.
    const t0 = Date.now();
    const soakStarted = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const pending = new Set<Promise<void>>();
    let stopLoad = false;
    const scheduler = (async () => {
      while (!stopLoad) {
        const elapsed = (Date.now() - t0) / 1000;
        if (elapsed >= options.seconds) break;
        for (const kind of KINDS) {
          const due = Math.floor(rates[kind].rate * elapsed) - soakStarted[kind];
          for (let i = 0; i < due; i++) {
            soakStarted[kind]++;
            const p = load.run(kind);
            pending.add(p);
            void p.finally(() => pending.delete(p));
          }
        }
        await sleep(20);
      }
    })();

    const samples: SampleRow[] = [];
    const driverDelay = monitorEventLoopDelay({ resolution: 10 });
    driverDelay.enable();
    let lastStarted = { ...counters.started };
    let lastFinished = { ...counters.finished };
    let lastCpu = driverCpuSeconds();
    let lastWaits = sui.waits;
    let lastAt = Date.now();
    for (let n = 1; n * options.sampleSeconds <= options.seconds; n++) {
      await sleep(Math.max(0, t0 + n * options.sampleSeconds * 1000 - Date.now()));
      // The window closes at the tick: what the driver counted and timed is taken before the
      // readings below, which take a second or more on a busy machine (they read /proc a file at a
      // time, so as not to hold the driver's event loop).
      const window = {
        t: Math.round((Date.now() - t0) / 1000),
        latency: latency.drain(),
        started: delta(counters.started, lastStarted),
        finished: delta(counters.finished, lastFinished),
        inFlight: load.inFlight(),
        cpu: driverCpuSeconds(),
        now: Date.now(),
        suiWalletWaits: sui.waits - lastWaits,
        driverDelayMs: driverDelay.max / 1e6,
      };
      driverDelay.reset();
      lastStarted = { ...counters.started };
      lastFinished = { ...counters.finished };
      lastWaits = sui.waits;
      const queues = await gauges.read();
      const processes = await clusterMemory(cluster.runnerPid);
      const metrics = await readMetricsTexts(cluster.healthUrls);
      const signer = metrics.signer === undefined ? undefined : parseSignerMetrics(metrics.signer);
      const liveHeap = liveHeapsOf(metrics);
      const postgresBackends = await backendsByApplication(sql, anonBytesReadIn(processes)).catch(
        () => undefined,
      );
      const row: SampleRow = {
        t: window.t,
        memory: Object.fromEntries(processes.map((p) => [p.name, p.bytes])),
        sharedMemory: Object.fromEntries(
          processes
            .filter((p) => p.segmentBytes > 0)
            .map((p) => [p.name, { bytes: p.sharedBytes, segment: p.segmentBytes }]),
        ),
        liveHeap,
        latency: window.latency,
        queues,
        started: window.started,
        finished: window.finished,
        inFlight: window.inFlight,
        openPayments: queues.openPayments,
        byConsumer: queues.byConsumer,
        driverBytes: process.memoryUsage().rss,
        driverCores: (window.cpu - lastCpu) / ((window.now - lastAt) / 1000),
        suiWalletWaits: window.suiWalletWaits,
        driverDelayMs: window.driverDelayMs,
        ...(signer && { signer }),
        ...(postgresBackends && { postgresBackends }),
      };
      lastCpu = window.cpu;
      lastAt = window.now;
      samples.push(row);
      say(sampleLine(row));
    }
    driverDelay.disable();
    stopLoad = true;
    await scheduler;

    say(`load stopped; waiting for ${load.inFlight()} payments in flight and the queues`);
    const drainStart = Date.now();
    const drainDeadline = drainStart + (options.drainSeconds ?? 240) * 1000;
    await Promise.race([Promise.all(pending), sleep(Math.max(0, drainDeadline - Date.now()))]);
    let queues = await gauges.read();
    while (
      (queues.outboxBacklog > 0 || queues.deliveriesPending > 0 || queues.consumerLag > 0) &&
      Date.now() < drainDeadline
    ) {
      await sleep(500);
      queues = await gauges.read();
    }
    const drainedSeconds = (Date.now() - drainStart) / 1000;
    say(
      `drained in ${drainedSeconds.toFixed(1)} s: ${load.inFlight()} payments in flight, outbox ${queues.outboxBacklog}, deliveries pending ${queues.deliveriesPending}, consumer lag ${queues.consumerLag}`,
    );
    const finalMemory = Object.fromEntries(
      (await clusterMemory(cluster.runnerPid)).map((p) => [p.name, p.bytes]),
    );

    const endChecks = await finalChecks(sql, load, queues);
    const result: SoakResult = {
      startedAt,
      seconds: options.seconds,
      sampleSeconds: options.sampleSeconds,
      probe: {
        seconds: probed.length > 0 ? options.probeSeconds : 0,
        workers,
        completedPerSecond,
        driverCores: probeCores,
        suiWalletWaits: probeWaits,
      },
      rates,
      samples,
      checks: judge(samples),
      endChecks,
      counters,
      final: { memory: finalMemory, queues, drainedSeconds },
      loadAverage: { start: loadStart, end: os.loadavg() },
      clusterLog,
    };
    await load.close();
    return result;
  } finally {
    await customers?.close();
    registrations.stop();
    await gauges.close().catch(() => {});
    await sql.end({ timeout: 5 });
    say("stopping the cluster");
    await cluster.stop();
    copyFileSync(cluster.logFile, clusterLog);
    removeClusterData(cluster);
    say(`cluster stopped; its log is in ${clusterLog}`);
  }
}

function delta(now: Record<Kind, number>, before: Record<Kind, number>): Record<Kind, number> {
  return { test: now.test - before.test, solana: now.solana - before.solana, sui: now.sui - before.sui };
}

async function finalChecks(
  sql: ReturnType<typeof createSql>,
  load: Awaited<ReturnType<typeof createSoakLoad>>,
  queues: QueueGauges,
): Promise<Check[]> {
  const expected = load.expected();
  const rows = await sql<{ id: string; status: string }[]>`
    select id::text, status from payments where merchant_id = ${load.merchant.merchantId}`;
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const wrong = [...expected].filter(([id, want]) => status.get(id) !== want);
  const events = await sql<
    { id: string }[]
  >`select id from events where merchant_id = ${load.merchant.merchantId}`;
  const received = load.receivedEventIds();
  const undelivered = events.filter((e) => !received.has(e.id));
  const { counters } = load;
  const failed = KINDS.reduce((sum, k) => sum + counters.failed[k], 0);
  const unfinished = load.unfinished();
  return [
    {
      name: "every paid payment in its right final state",
      ok: wrong.length === 0 && expected.size > 0,
      detail: `${expected.size - wrong.length}/${expected.size} right${
        wrong.length
          ? `; e.g. ${wrong
              .slice(0, 3)
              .map(([id, want]) => `${id} is ${status.get(id)}, want ${want}`)
              .join("; ")}`
          : ""
      }`,
    },
    {
      name: "every final webhook received",
      ok: unfinished.length === 0,
      detail: `${unfinished.length} missing${
        unfinished.length
          ? `: ${unfinished
              .slice(0, 3)
              .map((u) => `${u.kind} ${u.id}`)
              .join(", ")}`
          : ""
      }`,
    },
    {
      name: "every event delivered with a valid signature",
      ok: undelivered.length === 0 && counters.badSignatures === 0,
      detail: `${events.length - undelivered.length}/${events.length} events delivered; ${counters.webhooks} deliveries, ${counters.duplicateWebhooks} repeats, ${counters.badSignatures} bad signatures`,
    },
    {
      name: "no failed request or transfer",
      ok: failed === 0 && Object.keys(counters.httpErrors).length === 0,
      detail: `${failed} failed${counters.failureSamples.length ? ` (${counters.failureSamples.slice(0, 3).join(" | ")})` : ""}; non-2xx ${JSON.stringify(counters.httpErrors)}`,
    },
    {
      name: "queues empty at the end",
      ok: queues.outboxBacklog === 0 && queues.deliveriesPending === 0 && queues.consumerLag === 0,
      detail: `outbox ${queues.outboxBacklog}, deliveries pending ${queues.deliveriesPending}, consumer lag ${queues.consumerLag}`,
    },
  ];
}

const fmt = (p: Percentiles | undefined) => (p ? `${p.p50.toFixed(0)}/${p.p99.toFixed(0)}` : "-");
const MiB = (bytes: number | undefined) => (bytes === undefined ? "-" : (bytes / 2 ** 20).toFixed(0));

export function sampleLine(row: SampleRow): string {
  const mem = Object.entries(row.memory)
    .map(([name, bytes]) => `${name} ${MiB(bytes)}${sharedCell(row, name)}`)
    .join(", ");
  return (
    `t=${row.t}s started ${JSON.stringify(row.started)} finished ${JSON.stringify(row.finished)} in flight ${row.inFlight}; ` +
    `p50/p99 ms create(test) ${fmt(row.latency["POST /payments (test)"])}, test→webhook ${fmt(row.latency["test: paid → final webhook"])}, ` +
    `solana→webhook ${fmt(row.latency["solana: paid → final webhook"])}, sui→webhook ${fmt(row.latency["sui: paid → final webhook"])}; ` +
    `outbox ${row.queues.outboxBacklog}, lag ${row.queues.consumerLag}, deliveries ${row.queues.deliveriesPending}; ` +
    `driver ${row.driverCores.toFixed(2)} cores, loop delay ≤ ${row.driverDelayMs?.toFixed(0) ?? "-"} ms, Sui wallet waits ${row.suiWalletWaits}; MiB ${mem}` +
    `; heap after full collections MiB ${Object.entries(row.liveHeap ?? {})
      .map(([name, heap]) => `${name} ${MiB(heap.bytes)} (${heap.collections})`)
      .join(", ")}` +
    (row.signer
      ? `; signer ledger ${row.signer.intents} intents, ${row.signer.locks} locks, heap used ${MiB(row.signer.heapUsed)}`
      : "")
  );
}
