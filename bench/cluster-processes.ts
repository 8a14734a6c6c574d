// Which of the local runner's services (scripts/cluster/services.ts) a process is, for the benches
// that measure the cluster process by process.
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { SERVICES } from "../scripts/cluster/services.js";
import { ROOT } from "../test/soak/src/cluster.js";

/**
 * By the process's folder; the watchers all run from services/watcher, so for them by the chain
 * their WATCHER_CHAIN names (the runner calls them `watcher-<chain>`). Undefined for a process
 * that is none of them, or gone.
 */
export function serviceOfProcess(pid: number): string | undefined {
  try {
    const dir = realpathSync(`/proc/${pid}/cwd`);
    const candidates = SERVICES.filter((s) => path.join(ROOT, s.dir) === dir);
    if (candidates.length <= 1) return candidates[0]?.name;
    const chain = readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((entry) => entry.startsWith("WATCHER_CHAIN="))
      ?.slice("WATCHER_CHAIN=".length);
    return candidates.find((s) => s.name === `watcher-${chain}`)?.name;
  } catch {
    return undefined;
  }
}
