import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./cluster.js";
import { clusterMemory } from "./process-memory.js";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
});

describe("the cluster's memory, process by process", () => {
  it("tells the two watchers apart, though they run from one folder", async () => {
    for (const chain of ["solana", "sui"]) {
      const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], {
        cwd: path.join(ROOT, "services/watcher"),
        env: { ...process.env, WATCHER_CHAIN: chain },
        stdio: "ignore",
      });
      children.push(child);
      await new Promise((resolve) => child.once("spawn", resolve));
    }
    const names = clusterMemory(process.pid)
      .filter((p) => children.some((c) => p.pids.includes(c.pid!)))
      .map((p) => p.name)
      .sort();
    expect(names).toEqual(["watcher-solana", "watcher-sui"]);
  });
});
