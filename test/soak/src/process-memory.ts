// Memory of every process of the cluster, read from /proc: the runner's children are the
// services (named by their folder), nats-server and PostgreSQL (counted with all its backends).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { serviceOfProcess } from "../../../bench/cluster-processes.js";

export interface ProcessMemory {
  name: string;
  pids: number[];
  /** Proportional set size in bytes: shared pages split among their users, so PostgreSQL's
   * backends sharing its buffers are not counted once each. Resident size where PSS is unreadable. */
  bytes: number;
}

function parentOf(pid: number): number | undefined {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const ppid = parentOf(pid);
    if (ppid === undefined) continue;
    map.set(ppid, [...(map.get(ppid) ?? []), pid]);
  }
  return map;
}

function descendants(pid: number, tree: Map<number, number[]>): number[] {
  const out: number[] = [];
  const stack = [...(tree.get(pid) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    stack.push(...(tree.get(next) ?? []));
  }
  return out;
}

export function memoryOf(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const pss = rollup.match(/^Pss:\s+(\d+) kB/m);
    if (pss) return Number(pss[1]) * 1024;
  } catch {
    // fall back to the resident size
  }
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The runner's name for a service (the two watchers share a folder, so the folder alone named
 * both `watcher` and one hid the other), else the program's. */
function nameOf(pid: number): string {
  const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  if (comm !== "node" && !comm.startsWith("node")) return comm;
  const service = serviceOfProcess(pid);
  if (service) return service;
  try {
    return path.basename(readlinkSync(`/proc/${pid}/cwd`));
  } catch {
    return comm;
  }
}

/** One entry per direct child of the runner (a child's own children are counted with it), plus the runner. */
export function clusterMemory(runnerPid: number): ProcessMemory[] {
  const tree = childrenByParent();
  const out: ProcessMemory[] = [{ name: "runner", pids: [runnerPid], bytes: memoryOf(runnerPid) }];
  for (const child of tree.get(runnerPid) ?? []) {
    let name: string;
    try {
      name = nameOf(child);
    } catch {
      continue; // exited meanwhile
    }
    const pids = [child, ...descendants(child, tree)];
    out.push({ name, pids, bytes: pids.reduce((sum, pid) => sum + memoryOf(pid), 0) });
  }
  return out;
}
