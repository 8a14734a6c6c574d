import { execFileSync } from "node:child_process";
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
