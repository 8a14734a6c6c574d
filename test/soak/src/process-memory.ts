// Memory of every process of the cluster, read from /proc: the runner's children are the
// services (named by their folder), nats-server and PostgreSQL (counted with all its backends).
//
// Read asynchronously, a file at a time: the soak's driver measures request latencies on the same
// event loop, and a sample read synchronously (the stat of every process, the rollup of each of
// the cluster's, the whole smaps of each of some 45 PostgreSQL backends) held that loop 124–334 ms
// in every 10 s window of a soak of 2026-11-28, and the slowest POST /payments of each window
// matched the hold: every request in flight counted it as its own latency. Live POST /payments,
// at under 100 requests a window, had that hold as its p99 and failed CI's verdict twice.
import { readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { serviceOfProcess } from "../../../bench/cluster-processes.js";

export interface ProcessMemory {
  name: string;
  pids: number[];
  /** Proportional set size in bytes: shared pages split among their users, so PostgreSQL's
   * backends sharing its buffers are not counted once each. Resident size where PSS is unreadable. */
  bytes: number;
  /** Of `bytes`, the pages of shared memory segments (PostgreSQL's shared buffers and its other
   * shared structures). Such a segment is sized when the process starts; its pages count as the
   * processes first touch them, so this rises towards `segmentBytes` as buffers fill, and no further. */
  sharedBytes: number;
  /** The size of the shared memory segments mapped by the processes, each counted once. */
  segmentBytes: number;
  /** Each process's own anonymous memory (`Pss_Anon`), as read for `bytes`: the backends' table
   * uses it rather than reading every backend's rollup a second time. */
  anonBytesByPid: ReadonlyMap<number, number>;
}

async function parentOf(pid: number): Promise<number | undefined> {
  try {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

async function childrenByParent(): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const ppid = await parentOf(pid);
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

const kB = (text: string, field: string) =>
  Number(text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0) * 1024;

/** A process's PSS and, of it, the shared memory's (`Pss_Shmem`) and its own anonymous memory's
 * (`Pss_Anon`: heap and stacks, what a process allocates for itself). */
export async function memoryOf(
  pid: number,
): Promise<{ bytes: number; sharedBytes: number; anonBytes: number }> {
  try {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8");
    if (/^Pss:/m.test(rollup))
      return {
        bytes: kB(rollup, "Pss"),
        sharedBytes: kB(rollup, "Pss_Shmem"),
        anonBytes: kB(rollup, "Pss_Anon"),
      };
  } catch {
    // fall back to the resident size
  }
  try {
    const resident = kB(await readFile(`/proc/${pid}/status`, "utf8"), "VmRSS");
    return { bytes: resident, sharedBytes: 0, anonBytes: 0 };
  } catch {
    return { bytes: 0, sharedBytes: 0, anonBytes: 0 };
  }
}

/** Mappings backed by shared memory (what `Pss_Shmem` counts): an anonymous shared mapping shows
 * as `/dev/zero (deleted)`, System V segments as `/SYSV…`, POSIX ones under `/dev/shm/`. */
const SHMEM_MAPPING = /^(\/dev\/zero|\/SYSV|\/dev\/shm\/|\/memfd:)/;

/** The total size of the shared memory segments the processes map, each segment once however many
 * map it (keyed by device and inode): the most their shared pages' PSS can add up to. */
export async function segmentBytesOf(pids: number[]): Promise<number> {
  const segments = new Map<string, number>();
  for (const pid of pids) {
    let smaps: string;
    try {
      smaps = await readFile(`/proc/${pid}/smaps`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    let key: string | undefined;
    let size = 0;
    for (const line of smaps.split("\n")) {
      // A mapping's header starts with its address (a digit or a-f); its fields with a capital.
      // Only headers are matched against the pattern: a backend's smaps has some 25 field lines a
      // mapping, and matching every line was most of a sample's time.
      const first = line.charCodeAt(0);
      if (!((first >= 48 && first <= 57) || (first >= 97 && first <= 102))) {
        if (key === undefined) continue;
        if (line.startsWith("Size:")) size = kB(line, "Size");
        else if (line.startsWith("VmFlags:") && / sh( |$)/.test(line))
          segments.set(key, Math.max(segments.get(key) ?? 0, size));
        continue;
      }
      const header = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ (\S+) (\d+)\s*(.*)$/);
      key = header && SHMEM_MAPPING.test(header[3]!) ? `${header[1]} ${header[2]} ${header[3]}` : undefined;
    }
  }
  return [...segments.values()].reduce((a, b) => a + b, 0);
}

/** The memory of a process and its children, one figure. */
async function treeMemory(name: string, pids: number[]): Promise<ProcessMemory> {
  const each: Awaited<ReturnType<typeof memoryOf>>[] = [];
  for (const pid of pids) each.push(await memoryOf(pid));
  const sharedBytes = each.reduce((sum, m) => sum + m.sharedBytes, 0);
  return {
    name,
    pids,
    bytes: each.reduce((sum, m) => sum + m.bytes, 0),
    sharedBytes,
    // Reading every mapping costs more than the rollup: only where there are shared pages.
    segmentBytes: sharedBytes > 0 ? await segmentBytesOf(pids) : 0,
    anonBytesByPid: new Map(pids.map((pid, i) => [pid, each[i]!.anonBytes])),
  };
}

/** The runner's name for a service (the two watchers share a folder, so the folder alone named
 * both `watcher` and one hid the other), else the program's. */
async function nameOf(pid: number): Promise<string> {
  const comm = (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
  if (comm !== "node" && !comm.startsWith("node")) return comm;
  const service = serviceOfProcess(pid);
  if (service) return service;
  try {
    return path.basename(await readlink(`/proc/${pid}/cwd`));
  } catch {
    return comm;
  }
}

/** One entry per direct child of the runner (a child's own children are counted with it), plus the runner. */
export async function clusterMemory(runnerPid: number): Promise<ProcessMemory[]> {
  const tree = await childrenByParent();
  const out: ProcessMemory[] = [await treeMemory("runner", [runnerPid])];
  for (const child of tree.get(runnerPid) ?? []) {
    let name: string;
    try {
      name = await nameOf(child);
    } catch {
      continue; // exited meanwhile
    }
    out.push(await treeMemory(name, [child, ...descendants(child, tree)]));
  }
  return out;
}

/** A process's `Pss_Anon` as `clusterMemory` read it, or read now for one that started since. */
export function anonBytesReadIn(processes: readonly ProcessMemory[]): (pid: number) => Promise<number> {
  return async (pid) => {
    for (const process of processes) {
      const bytes = process.anonBytesByPid.get(pid);
      if (bytes !== undefined) return bytes;
    }
    return (await memoryOf(pid)).anonBytes;
  };
}
