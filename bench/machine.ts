import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";

/** One line describing where a benchmark ran; every recorded figure carries it. */
export function machineLine(): string {
  let model = os.cpus()[0]?.model ?? "unknown CPU";
  try {
    model =
      execFileSync("lscpu", { encoding: "utf8" })
        .match(/Model name:\s*(.+)/)?.[1]
        ?.trim() ?? model;
  } catch {
    // lscpu missing: keep the os.cpus() model
  }
  const gib = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${model}, ${os.cpus().length} cores, ${gib} GiB, Node ${process.version}, ${os.type()} ${os.release()}`;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** CPU seconds used so far by these processes, from /proc (Linux, 100 ticks a second). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone: it no longer counts
    }
  }
  return ticks / 100;
}
/** The whole machine's CPU ticks so far (all cores), from /proc/stat's first line. */
export function machineTicks(): {
  user: number;
  system: number;
  softirq: number;
  idle: number;
  total: number;
} {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal
  const [user, nice, system, idle, iowait, irq, softirq] = ticks as [number, ...number[]];
  return {
    user: user + nice!,
    system: system! + irq!,
    softirq: softirq!,
    idle: idle! + iowait!,
    total: ticks.slice(0, 8).reduce((a, b) => a + b, 0),
  };
}

/** Busy CPU seconds of the whole machine so far (all cores). */
export function machineBusySeconds(): number {
  const { total, idle } = machineTicks();
  return (total - idle) / 100;
}

/**
 * How the whole machine's CPU went between two readings, in % of all cores: "user / system /
 * softirq / idle". Where the cores go (our code, the kernel's calls, its network stack) says
 * what would lift a ceiling; no process's own figure shows the softirq share.
 */
export function machineSplit(before: ReturnType<typeof machineTicks>, after = machineTicks()): string {
  const total = after.total - before.total;
  const pct = (k: "user" | "system" | "softirq" | "idle") =>
    total > 0 ? ((100 * (after[k] - before[k])) / total).toFixed(0) : "-";
  return `${pct("user")} / ${pct("system")} / ${pct("softirq")} / ${pct("idle")}`;
}
