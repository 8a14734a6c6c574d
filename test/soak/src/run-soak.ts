// The soak: the whole cluster as `npm start` runs it, a short closed-loop probe that measures
// what it completes per second, then steady open-loop load at half of that for the run's length,
// sampled at a fixed period; at the end every payment must be final and every event delivered.
import { copyFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSql } from "@gateway/db";
import { removeClusterData, startSoakCluster } from "./cluster.js";
import { createLatencyWindows, type Percentiles } from "./latency.js";
import { createSoakLoad, KINDS, type Kind, type LoadCounters } from "./load.js";
import { createSolanaPayer, createSuiPayer } from "./payers.js";
import { clusterMemory } from "./process-memory.js";
import { watchSolanaRegistrations } from "./registration.js";
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
}

export interface SoakResult {
  startedAt: Date;
  seconds: number;
  sampleSeconds: number;
  probe: {
    seconds: number;
    workers: Record<Kind, number>;
    completedPerSecond: Partial<Record<Kind, number>>;
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

const DEFAULT_WORKERS: Record<Kind, number> = { test: 16, solana: 6, sui: 6 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const say = options.say ?? (() => {});
  const startedAt = new Date();
  const loadStart = os.loadavg();
  say("starting the cluster (scripts/local-cluster.ts)");
  const cluster = await startSoakCluster();
  const clusterLog = path.join(os.tmpdir(), `gw-soak-${startedAt.toISOString().replace(/[:.]/g, "-")}.log`);
  const sql = createSql({ url: cluster.databaseUrl, max: 4 });
  const gauges = await createGaugeReader({ sql, natsUrl: cluster.natsUrl });
  const registrations = watchSolanaRegistrations(cluster.solanaRpcUrl);
  const latency = createLatencyWindows();
  try {
    say(`cluster up: API ${cluster.apiUrl}, data in ${cluster.dataDir}`);
    const load = await createSoakLoad({
      apiUrl: cluster.apiUrl,
      sql,
      latency,
      payers: {
        solana: createSolanaPayer({ rpcUrl: cluster.solanaRpcUrl, wsUrl: cluster.solanaWsUrl }),
        sui: createSuiPayer({ url: cluster.suiUrl }),
      },
      solanaRegistered: (address) => registrations.registered(address),
    });
    const { counters } = load;

    // Capacity probe: closed loop, every kind at once, as the soak will run them.
    const workers = options.probeWorkers ?? DEFAULT_WORKERS;
    const probed = KINDS.filter((kind) => options.rates?.[kind] === undefined);
    const completedPerSecond: Partial<Record<Kind, number>> = {};
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
      let last = { ...counters.finished };
      for (let n = 1; n * 5 <= options.probeSeconds; n++) {
        await sleep(Math.max(0, probeStart + n * 5000 - Date.now()));
        if (n * 5 <= options.probeSeconds / 3) before = { ...counters.finished };
        const window = latency.drain();
        say(
          `probe t=${n * 5}s finished ${JSON.stringify(delta(counters.finished, last))}; p50/p99 ms ${Object.entries(
            window,
          )
            .map(([op, p]) => `${op} ${p.p50.toFixed(0)}/${p.p99.toFixed(0)}`)
            .join(", ")}`,
        );
        last = { ...counters.finished };
      }
      await sleep(Math.max(0, probeEnd - Date.now()));
      const after = { ...counters.finished };
      const counted = options.probeSeconds - Math.floor(options.probeSeconds / 3 / 5) * 5;
      await Promise.all(loops);
      for (const kind of probed) completedPerSecond[kind] = (after[kind] - before[kind]) / counted;
      say(`probe: completed per second over its last ${counted} s ${JSON.stringify(completedPerSecond)}`);
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
    let lastStarted = { ...counters.started };
    let lastFinished = { ...counters.finished };
    for (let n = 1; n * options.sampleSeconds <= options.seconds; n++) {
      await sleep(Math.max(0, t0 + n * options.sampleSeconds * 1000 - Date.now()));
      const queues = await gauges.read();
      const processes = clusterMemory(cluster.runnerPid);
      const row: SampleRow = {
        t: Math.round((Date.now() - t0) / 1000),
        memory: Object.fromEntries(processes.map((p) => [p.name, p.bytes])),
        latency: latency.drain(),
        queues,
        started: delta(counters.started, lastStarted),
        finished: delta(counters.finished, lastFinished),
        inFlight: load.inFlight(),
        openPayments: queues.openPayments,
        byConsumer: queues.byConsumer,
        driverBytes: process.memoryUsage().rss,
      };
      lastStarted = { ...counters.started };
      lastFinished = { ...counters.finished };
      samples.push(row);
      say(sampleLine(row));
    }
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
    const finalMemory = Object.fromEntries(clusterMemory(cluster.runnerPid).map((p) => [p.name, p.bytes]));

    const endChecks = await finalChecks(sql, load, queues);
    const result: SoakResult = {
      startedAt,
      seconds: options.seconds,
      sampleSeconds: options.sampleSeconds,
      probe: { seconds: probed.length > 0 ? options.probeSeconds : 0, workers, completedPerSecond },
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
    .map(([name, bytes]) => `${name} ${MiB(bytes)}`)
    .join(", ");
  return (
    `t=${row.t}s started ${JSON.stringify(row.started)} finished ${JSON.stringify(row.finished)} in flight ${row.inFlight}; ` +
    `p50/p99 ms create(test) ${fmt(row.latency["POST /payments (test)"])}, test→webhook ${fmt(row.latency["test: paid → final webhook"])}, ` +
    `solana→webhook ${fmt(row.latency["solana: paid → final webhook"])}, sui→webhook ${fmt(row.latency["sui: paid → final webhook"])}; ` +
    `outbox ${row.queues.outboxBacklog}, lag ${row.queues.consumerLag}, deliveries ${row.queues.deliveriesPending}; MiB ${mem}`
  );
}
