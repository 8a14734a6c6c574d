import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./cluster.js";
import { anonBytesReadIn, clusterMemory, memoryOf, segmentBytesOf } from "./process-memory.js";

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
    const names = (await clusterMemory(process.pid))
      .filter((p) => children.some((c) => p.pids.includes(c.pid!)))
      .map((p) => p.name)
      .sort();
    expect(names).toEqual(["watcher-solana", "watcher-sui"]);
  });
});

describe("shared memory segments", () => {
  it("counts a segment once however many processes map it, and its touched pages apart", async () => {
    // A parent and its child share one anonymous shared mapping, as PostgreSQL's postmaster and
    // backends share its buffers: Python maps 64 MiB shared, writes 16 MiB, forks, both read
    // those 16 MiB, and wait.
    const child = spawn(
      "python3",
      [
        "-c",
        [
          "import mmap, os, sys, time",
          "m = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_SHARED)",
          "m[: 16 << 20] = b'x' * (16 << 20)",
          "os.fork()",
          "_ = m[: 16 << 20]  # both read the pages, so both map them",
          "sys.stdout.write('ready\\n'); sys.stdout.flush()",
          "time.sleep(60)",
        ].join("\n"),
      ],
      { stdio: ["ignore", "pipe", "inherit"], detached: true },
    );
    children.push(child);
    await new Promise<void>((resolve) => {
      let ready = 0;
      child.stdout!.on("data", (d: Buffer) => {
        ready += d.toString().split("ready").length - 1;
        if (ready === 2) resolve();
      });
    });
    const tree = await clusterMemory(child.pid!);
    const pids = tree.flatMap((p) => p.pids);
    expect(pids).toHaveLength(2); // the runner's slot is the parent; its fork is its child
    const whole = {
      bytes: tree.reduce((a, p) => a + p.bytes, 0),
      sharedBytes: tree.reduce((a, p) => a + p.sharedBytes, 0),
    };
    const MiB = 2 ** 20;
    // The 16 MiB touched, split between the two: together they count it once.
    expect(whole.sharedBytes).toBeGreaterThanOrEqual(15.5 * MiB);
    expect(whole.sharedBytes).toBeLessThanOrEqual(16.5 * MiB);
    expect((await memoryOf(child.pid!)).sharedBytes).toBeLessThan(12 * MiB);
    // The segment is 64 MiB, mapped by both, counted once.
    expect(await segmentBytesOf(pids)).toBe(64 * MiB);
    // Each process's own memory as this reading found it: a part of their PSS outside the shared pages.
    const anonOf = anonBytesReadIn(tree);
    let anon = 0;
    for (const pid of pids) {
      const bytes = await anonOf(pid);
      expect(bytes).toBeGreaterThan(0);
      anon += bytes;
    }
    expect(anon).toBeLessThanOrEqual(whole.bytes - whole.sharedBytes);
    process.kill(-child.pid!);
  });
});
