// The soak's record: what ran, at what rates and why, the table over time, and the verdict.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeKeepingNotes } from "../../../bench/notes-marker.js";
import { ROOT } from "./cluster.js";
import { KINDS } from "./load.js";
import type { SampleRow, SoakResult } from "./run-soak.js";
import type { MemoryBasis } from "./verdict.js";

const MiB = (bytes: number | undefined) => (bytes === undefined ? "-" : (bytes / 2 ** 20).toFixed(0));
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "-" : v.toFixed(0));
const pct = (row: SampleRow, op: string) => {
  const p = row.latency[op];
  return p ? `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}` : "-";
};

/** Memory table: one column per process, in the order the runner started them; a process with
 * shared memory segments shows how much of its figure their pages are. */
export function memoryTable(result: SoakResult): string[] {
  const names = [...new Set(result.samples.flatMap((s) => Object.keys(s.memory)))];
  const lines = [
    `| t (s) | ${names.join(" | ")} | soak driver |`,
    `| - | ${names.map(() => "-").join(" | ")} | - |`,
  ];
  for (const row of result.samples) {
    lines.push(
      `| ${row.t} | ${names.map((n) => `${MiB(row.memory[n])}${sharedCell(row, n)}`).join(" | ")} | ${MiB(row.driverBytes)} |`,
    );
  }
  lines.push(`| after drain | ${names.map((n) => MiB(result.final.memory[n])).join(" | ")} | |`);
  return lines;
}

/** " (152 of 167 shared)" after a process's memory when it maps shared memory, else nothing:
 * the report's table and the progress lines both say it so. */
export function sharedCell(row: Pick<SampleRow, "sharedMemory">, name: string): string {
  const shared = row.sharedMemory?.[name];
  return shared ? ` (${MiB(shared.bytes)} of ${MiB(shared.segment)} shared)` : "";
}

/** The Node services' heap after their latest full collection (what the verdict judges them on),
 * with the number of full collections so far in brackets. */
export function liveHeapTable(result: SoakResult): string[] {
  const names = [...new Set(result.samples.flatMap((s) => Object.keys(s.liveHeap ?? {})))];
  if (names.length === 0) return ["No service reported its heap after full collections."];
  const lines = [`| t (s) | ${names.join(" | ")} |`, `| - | ${names.map(() => "-").join(" | ")} |`];
  for (const row of result.samples) {
    const cell = (name: string) => {
      const heap = row.liveHeap?.[name];
      return heap ? `${MiB(heap.bytes)} (${heap.collections})` : "-";
    };
    lines.push(`| ${row.t} | ${names.map(cell).join(" | ")} |`);
  }
  return lines;
}

export function loadTable(result: SoakResult): string[] {
  const lines = [
    "| t (s) | started test/sol/sui | finished test/sol/sui | in flight | open payments | POST /payments test p50/p95/p99 ms | simulate p99 | generate-wallet p99 | test paid→webhook p50/p95/p99 | Solana paid→webhook p50/p95/p99 | Sui paid→webhook p50/p95/p99 | outbox backlog | consumer lag | deliveries pending | driver cores | driver loop delay max ms | Sui wallet waits |",
    "| - | - | - | - | - | - | - | - | - | - | - | - | - | - | - | - | - |",
  ];
  for (const row of result.samples) {
    lines.push(
      `| ${row.t} | ${KINDS.map((k) => row.started[k]).join("/")} | ${KINDS.map((k) => row.finished[k]).join("/")} | ${row.inFlight} | ${row.openPayments} | ${pct(row, "POST /payments (test)")} | ${ms(row.latency["POST simulate"]?.p99)} | ${ms(row.latency["POST generate-wallet"]?.p99)} | ${pct(row, "test: paid → final webhook")} | ${pct(row, "solana: paid → final webhook")} | ${pct(row, "sui: paid → final webhook")} | ${row.queues.outboxBacklog} | ${row.queues.consumerLag} | ${row.queues.deliveriesPending} | ${row.driverCores.toFixed(2)} | ${row.driverDelayMs?.toFixed(0) ?? "-"} | ${row.suiWalletWaits} |`,
    );
  }
  return lines;
}

/** The processes whose memory the verdict judged on `on`, as its checks record it. */
export function judgedOn(result: SoakResult, on: MemoryBasis): string {
  const names = result.checks.flatMap((c) => (c.judged?.on === on ? [c.judged.process] : []));
  return names.length > 0 ? names.join(", ") : "none";
}

export function verdictLines(result: SoakResult): string[] {
  return [
    "| check | ok | detail |",
    "| - | - | - |",
    ...[...result.checks, ...result.endChecks].map(
      (c) => `| ${c.name} | ${c.ok ? "yes" : "**NO**"} | ${c.detail} |`,
    ),
  ];
}

export function passed(result: SoakResult): boolean {
  return [...result.checks, ...result.endChecks].every((c) => c.ok);
}

export function ratesLine(result: SoakResult): string {
  return KINDS.map((k) => {
    const { rate, source } = result.rates[k];
    const probed = result.probe.completedPerSecond[k];
    return `${k} ${rate}/s (${source === "env" ? "set by env" : `half of ${probed?.toFixed(2)}/s probed`})`;
  }).join(", ");
}

export function totals(result: SoakResult) {
  const sum = (pick: (row: SampleRow) => number) => result.samples.reduce((a, row) => a + pick(row), 0);
  return {
    test: sum((r) => r.finished.test),
    solana: sum((r) => r.finished.solana),
    sui: sum((r) => r.finished.sui),
  };
}

/** The code that ran: the checkout's commit, or SOAK_COMMIT when run from an exported tree. */
function commitOfRun(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return process.env.SOAK_COMMIT ?? "unknown";
  }
}

export function soakMarkdown(result: SoakResult, machine: string): string {
  const done = totals(result);
  const la = (v: number[]) => v.map((x) => x.toFixed(1)).join(", ");
  const c = result.counters;
  return [
    "# Soak: steady live and test payments on the whole cluster",
    "",
    `Machine: ${machine}. Run ${result.startedAt.toISOString()}: \`npm run soak\` (${result.seconds} s of load, a sample every ${result.sampleSeconds} s) on commit ${commitOfRun()}.`,
    // Only the reading before the cluster starts can show other work; after that the cluster's
    // own processes load the two cores, and the soak cannot tell anything else's load from theirs.
    `Load average (1, 5, 15 min) before the cluster started ${la(result.loadAverage.start)}, at the end ${la(result.loadAverage.end)}, the cluster's own load included: the soak cannot tell other work from its own once it runs.`,
    "",
    "## What ran",
    "",
    "`scripts/local-cluster.ts` (what `npm start` runs), in a temporary data folder with its ports shifted: embedded PostgreSQL, `nats-server -js`, mail catcher, signer (mTLS), solana-localnet, sui-localnet (250 ms checkpoints), settlement, watcher-solana, watcher-sui, notifier and api, one process each, `LOG_LEVEL=warn`. One merchant with a test and a live key and one webhook endpoint per mode on a local receiver that verifies every signature.",
    "",
    "- **test payments**: `POST /payments` (10.00 USD) then `POST /payments/checkout/:id/simulate` cycling paid, paid, paid, overpaid, underpaid, expired; finished at its final webhook (`payment.completed`, `payment.refunded` or `payment.expired`).",
    "- **Solana live payments**: `POST /payments` (1.00 USD) with the live key, `generate-wallet` (USDC on Solana), wait until the watcher has registered the address with the provider, then one of 32 customer wallets funded at the start sends the exact USDC in one signed transfer through the local network's RPC (`sendTransaction`); finished at `payment.completed` (after the sweep to the vault).",
    "- **Sui live payments**: the same with USDC on Sui, each paid by its own wallet from a reserve the faucet funds ahead (at least 64, or 4 s of the rate, topped up in the background), one transaction executed through `SuiGrpcClient`.",
    "",
    "The customers cost the driver, which shares the two cores with the cluster, one signed transfer per live payment: a fresh wallet, two faucet calls and a websocket confirmation per payment cost it 10–40 ms of CPU and held the probe at 1–3 live payments a second.",
    "",
    "## Rates: half the measured capacity",
    "",
    `bench/RESULTS.md measures parts on their own (\`POST /payments\` alone 676 req/s with 16 clients; webhook deliveries 1,780/s end to end; Solana and Sui one payment at a time for latency), not the whole system paying, settling and notifying at once, and the soak runs every part on the same two cores. So the soak measures its own capacity first: a ${result.probe.seconds} s closed-loop probe on this cluster with ${KINDS.map((k) => `${result.probe.workers[k]} ${k}`).join(", ")} workers running at once, each starting its next payment when the last one's final webhook arrived. It completed ${KINDS.map((k) => `${k} ${result.probe.completedPerSecond[k]?.toFixed(2) ?? "(not probed)"}/s`).join(", ")}, with the driver using ${result.probe.driverCores.toFixed(2)} cores and ${result.probe.suiWalletWaits} Sui payments waiting for a funded wallet. The steady load is half of that, open loop (payments start on schedule whatever the answers): **${ratesLine(result)}**. \`SOAK_RATE_TEST\`, \`SOAK_RATE_SOLANA\`, \`SOAK_RATE_SUI\` set rates instead.`,
    "",
    "## Result",
    "",
    `**${passed(result) ? "Nothing grew without bound" : "FAILED"}.** Payments finished during the load: ${done.test} test, ${done.solana} Solana, ${done.sui} Sui; ${c.webhooks} webhook deliveries received (${c.duplicateWebhooks} repeats, ${c.badSignatures} bad signatures). After the load stopped everything drained in ${result.final.drainedSeconds.toFixed(1)} s.`,
    "",
    "The first third of the samples is warm-up; the last third is compared with the middle third: memory (mean) may grow at most 15 % + 24 MiB and may not climb (> 1 MiB/min) through both thirds to end > 8 MiB higher, queue maxima at most 2× + 50, the median of the windows' p99 latency at most 2× + 100 ms (the p50 for operations with fewer than 100 requests per window).",
    `A Node service that reports its heap after full collections on /metrics (in this run ${judgedOn(result, "heap after full collections")}) is judged on that, heap in use plus external memory, by the same rules, when each of the two thirds holds a reading from a new full collection (V8 collects fully more often as live data grows, so a third with one collection is a third whose old generation was slow to fill); its resident size is recorded beside it. A garbage-collected process's resident size follows when its collector happened to run (settlement's swung 170–330 MiB between samples of the 2026-11-24 18:18 run while its heap after full collections stayed near 54 MiB), so it says little about what the process keeps.`,
    `A process with shared memory segments (in this run ${judgedOn(result, "outside shared memory")}; PostgreSQL is counted with all its backends) is judged on its PSS outside them, by the same rules, and its shared pages are checked against the segments' size. PostgreSQL's shared buffers are sized at start and count in PSS as its processes first touch them, so its PSS rises while they fill and never past their size: what could leak is the backends' own memory. The memory table shows the shared part in brackets; here the buffers are full within the first minute.`,
    `Every other process (in this run ${judgedOn(result, "pss")}) is judged on its PSS.`,
    "The local Solana and Sui networks are recorded but not judged: they stand in for the chains and keep their whole ledger in memory by design, so they grow with every transaction.",
    "",
    ...verdictLines(result),
    "",
    "## Latency and queues over time",
    "",
    `Per ${result.sampleSeconds} s window. Latency is measured by the load driver: the API's requests from send to full answer; "paid → webhook" from the moment the customer's part was done (simulation accepted; the transfer accepted by Solana's RPC, or executed on Sui) to the final webhook's arrival at the receiver, so the live figures include finality, settlement, the sweep and the notifier.`,
    "",
    ...loadTable(result),
    "",
    "## Memory of every process (MiB, proportional set size)",
    "",
    "PSS counts shared pages once across the processes that share them, so PostgreSQL (the postmaster and all its backends together) is not counted once per backend. `runner` is scripts/local-cluster.ts itself.",
    "",
    ...memoryTable(result),
    "",
    "## Heap after full collections (MiB, full collections so far in brackets)",
    "",
    "From each Node service's /metrics (`gateway_heap_after_full_gc_bytes`, heap in use plus external, and `gateway_full_gcs`) at each sample: what the service keeps, without its garbage.",
    "",
    ...liveHeapTable(result),
    "",
    "## PostgreSQL's backends by service (MiB of their own memory, connections in brackets)",
    "",
    "Each backend's anonymous memory (`Pss_Anon`: what it allocated itself, without the shared buffers), summed by the `application_name` of its connection (PostgreSQL's own processes by their type), from `pg_stat_activity` at each sample. Recorded, not judged: the verdict judges PostgreSQL as a whole, outside its shared memory; this says whose memory it is.",
    "",
    ...postgresBackendsTable(result),
    "",
    ...signerTable(result),
  ].join("\n");
}

export function postgresBackendsTable(result: SoakResult): string[] {
  const names = [...new Set(result.samples.flatMap((s) => Object.keys(s.postgresBackends ?? {})))].sort();
  if (names.length === 0) return ["PostgreSQL's backends were not read."];
  const cell = (row: SampleRow, name: string) => {
    const group = row.postgresBackends?.[name];
    return group ? `${(group.bytes / 2 ** 20).toFixed(1)} (${group.connections})` : "-";
  };
  return [
    `| t (s) | ${names.join(" | ")} |`,
    `| - | ${names.map(() => "-").join(" | ")} |`,
    ...result.samples.map((row) => `| ${row.t} | ${names.map((n) => cell(row, n)).join(" | ")} |`),
  ];
}

/**
 * The signer's ledger beside its heap, per sample: the ledger grows with every signing by
 * design, so the signer's memory is read against it.
 */
export function signerTable(result: SoakResult): string[] {
  const rows = result.samples.filter((s) => s.signer);
  if (rows.length === 0) return [];
  const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  return [
    "## The signer: its ledger and its heap",
    "",
    "From the signer's /metrics at each sample. The ledger keeps every signed intent for good (exactly once): its entries only grow. `heap used` includes garbage not yet collected.",
    "",
    "| t (s) | bound intents | locked inputs | swept deposits | heap used (MiB) | heap total (MiB) |",
    "| - | - | - | - | - | - |",
    ...rows.map((s) => {
      const g = s.signer!;
      return `| ${s.t} | ${g.intents} | ${g.locks} | ${g.deposits} | ${MiB(g.heapUsed)} | ${MiB(g.heapTotal)} |`;
    }),
    "",
  ];
}

/** Writes bench/RESULTS-soak.md and the soak's row in bench/RESULTS.md's one table. */
export function recordSoak(result: SoakResult, machine: string): void {
  // The hand-written notes below the marker (every run of a day, and why) outlive the recording.
  writeKeepingNotes(path.join(ROOT, "bench/RESULTS-soak.md"), soakMarkdown(result, machine));
  const summaryPath = path.join(ROOT, "bench/RESULTS.md");
  const summary = readFileSync(summaryPath, "utf8").split("\n");
  const done = totals(result);
  const rates = KINDS.map((k) => `${k} ${result.rates[k].rate}/s`).join(", ");
  const final = result.endChecks.every((c) => c.ok)
    ? "all final, every event delivered"
    : "NOT all final (see file)";
  const latest = `${rates}; ${done.test + done.solana + done.sui} payments, ${final} (${passed(result) ? "met" : "**not met**"})`;
  const where = `${machine.split(",").slice(0, 2).join(",")}, ${result.startedAt.toISOString().slice(0, 10)}`;
  const line = `| Soak: half the probed capacity, ${Math.round(result.seconds / 60)} min | nothing grows without bound | ${latest} | ${where} | [soak](RESULTS-soak.md) |`;
  const existing = summary.findIndex((l) => l.startsWith("| Soak:"));
  if (existing >= 0) summary[existing] = line;
  else {
    // After the last row of the table.
    const header = summary.findIndex((l) => l.startsWith("| area |"));
    let end = header + 2;
    while (summary[end]?.startsWith("|")) end++;
    summary.splice(end, 0, line);
  }
  writeFileSync(summaryPath, summary.join("\n"));
}
