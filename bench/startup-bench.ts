// Start-up time and memory of every process `npm start` runs, from TypeScript through tsx
// (GATEWAY_FROM_SOURCE=1) and compiled (the default): the whole local cluster started RUNS times
// each way, in a fresh data folder, as test/soak starts it. Start-up is the runner's own
// "ready in N ms" (spawn to the first /readyz 200, polled every 50 ms); memory is each process's
// resident set once the whole cluster is up, alone and with its children (tsx and the API
// run esbuild as a child process).
//   pnpm exec tsx bench/startup-bench.ts [runs] [--record]
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { SERVICES } from "../scripts/cluster/services.js";
import { removeClusterData, startSoakCluster } from "../test/soak/src/cluster.js";
import { serviceOfProcess } from "./cluster-processes.js";
import { machineLine } from "./machine.js";

const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 3);
const record = process.argv.includes("--record");
type Mode = "tsx" | "compiled";

interface ProcessFigures {
  startMs: number;
  rssMiB: number;
  treeRssMiB: number;
}
interface Run {
  mode: Mode;
  load: string;
  clusterUpSeconds: number;
  processes: Record<string, ProcessFigures>;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number),
    );
  } catch {
    return [];
  }
}

function rssKiB(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const treeRssKiB = (pid: number): number =>
  rssKiB(pid) + childrenOf(pid).reduce((sum, child) => sum + treeRssKiB(child), 0);

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function oneRun(mode: Mode): Promise<Run> {
  process.env.GATEWAY_FROM_SOURCE = mode === "tsx" ? "1" : "0";
  const load = loadAverage();
  const started = performance.now();
  const cluster = await startSoakCluster();
  const clusterUpSeconds = (performance.now() - started) / 1000;
  try {
    // The log file is written asynchronously: the last "ready" line may land after the runner's
    // "Press Ctrl-C" was seen on its output.
    let log = readFileSync(cluster.logFile, "utf8");
    for (let tries = 0; tries < 40 && !log.includes("Press Ctrl-C"); tries++) {
      await new Promise((r) => setTimeout(r, 50));
      log = readFileSync(cluster.logFile, "utf8");
    }
    const processes: Record<string, ProcessFigures> = {};
    for (const pid of childrenOf(cluster.runnerPid)) {
      const name = serviceOfProcess(pid);
      if (!name) continue;
      const startMs = Number(log.match(new RegExp(`\\| ${name} ready in (\\d+) ms`))?.[1]);
      processes[name] = {
        startMs,
        rssMiB: rssKiB(pid) / 1024,
        treeRssMiB: treeRssKiB(pid) / 1024,
      };
    }
    return { mode, load, clusterUpSeconds, processes };
  } finally {
    await cluster.stop();
    removeClusterData(cluster);
  }
}

const all: Run[] = [];
/** Clusters that did not come up (the soak's random port offset can meet a port in use). */
const failed: string[] = [];
for (let i = 0; i < runs; i++) {
  // Alternating, so a change in the machine's other load falls on both ways alike.
  for (const mode of ["tsx", "compiled"] as const) {
    for (let attempt = 1; ; attempt++) {
      try {
        const run = await oneRun(mode);
        all.push(run);
        process.stdout.write(
          `${mode} run ${i + 1}: up in ${run.clusterUpSeconds.toFixed(1)} s (load ${run.load})\n`,
        );
        break;
      } catch (err) {
        const text = err instanceof Error ? err.message : String(err);
        const reason = text.match(/Error: [^\n]*/)?.[0] ?? text.split("\n")[0];
        failed.push(`${mode} run ${i + 1}, attempt ${attempt} (load ${loadAverage()}): ${reason}`);
        process.stdout.write(`${mode} run ${i + 1} attempt ${attempt} failed: ${reason}\n`);
        if (attempt === 3) throw err;
      }
    }
  }
}

const names = SERVICES.map((s) => s.name).filter((n) => all.some((r) => r.processes[n]));
const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || Number.isNaN(n) ? "-" : n.toFixed(digits);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

let out = `\n## ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${runs} runs each way\n\n`;
out += `Machine: ${machineLine()}.\n\n`;
out += 'Every run (load average 1/5/15 min when it started; cluster up: runner start to "Press Ctrl-C"):\n\n';
out +=
  "| run | mode | load | cluster up (s) | " +
  names.map((n) => `${n} start ms / RSS MiB (with children)`).join(" | ") +
  " |\n";
out += `|${" - |".repeat(4 + names.length)}\n`;
all.forEach((run, i) => {
  const cells = names.map((n) => {
    const p = run.processes[n];
    return p ? `${fmt(p.startMs)} / ${fmt(p.rssMiB)} (${fmt(p.treeRssMiB)})` : "-";
  });
  out += `| ${Math.floor(i / 2) + 1} | ${run.mode} | ${run.load} | ${fmt(run.clusterUpSeconds, 1)} | ${cells.join(" | ")} |\n`;
});
if (failed.length)
  out += `\nClusters that did not come up, each retried:\n${failed.map((f) => `- ${f}`).join("\n")}\n`;
out +=
  "\nMedians over the runs:\n\n| process | start ms tsx | start ms compiled | RSS MiB tsx | RSS MiB compiled | with children tsx | with children compiled |\n| - | - | - | - | - | - | - |\n";
for (const n of names) {
  const of = (mode: Mode, key: keyof ProcessFigures) =>
    median(all.filter((r) => r.mode === mode && r.processes[n]).map((r) => r.processes[n]![key]));
  out += `| ${n} | ${fmt(of("tsx", "startMs"))} | ${fmt(of("compiled", "startMs"))} | ${fmt(of("tsx", "rssMiB"))} | ${fmt(of("compiled", "rssMiB"))} | ${fmt(of("tsx", "treeRssMiB"))} | ${fmt(of("compiled", "treeRssMiB"))} |\n`;
}
process.stdout.write(out);
if (record) appendFileSync(new URL("./RESULTS-startup.md", import.meta.url), out);
