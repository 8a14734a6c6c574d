import { describe, expect, it } from "vitest";
import { coalesce } from "./coalesce.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A task that records its runs, how many overlapped, and what it saw when it started. */
function recorder(ms: number, fail?: (run: number) => boolean) {
  let inFlight = 0;
  const state = { runs: 0, maxInFlight: 0, seen: [] as number[], value: 0, starts: [] as number[] };
  const task = async () => {
    const run = ++state.runs;
    state.seen.push(state.value);
    state.starts.push(performance.now());
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    await sleep(ms);
    inFlight--;
    if (fail?.(run)) throw new Error(`run ${run} failed`);
  };
  return { state, task };
}

describe("coalesce", () => {
  it("runs one at a time, with every call made meanwhile sharing the one queued run", async () => {
    const { state, task } = recorder(30);
    const runs = coalesce(task);
    const first = runs.run();
    await sleep(5);
    const calls = Array.from({ length: 50 }, () => {
      state.value++;
      return runs.run();
    });
    expect(new Set(calls).size).toBe(1);
    await Promise.all([first, ...calls]);
    expect(state.runs).toBe(2);
    expect(state.maxInFlight).toBe(1);
    // The queued run started after the last call, so it saw every change the calls made.
    expect(state.seen).toEqual([0, 50]);
  });

  it("settles a call only after a run that started after it", async () => {
    const { state, task } = recorder(20);
    const runs = coalesce(task);
    void runs.run();
    await sleep(5);
    state.value = 7;
    await runs.run();
    expect(state.seen.at(-1)).toBe(7);
  });

  it("gives a failure to the calls of the failed run only, and keeps going", async () => {
    const { state, task } = recorder(10, (run) => run === 1);
    const runs = coalesce(task);
    const failed = runs.run();
    await sleep(2);
    const next = runs.run();
    await expect(failed).rejects.toThrow("run 1 failed");
    await expect(next).resolves.toBeUndefined();
    expect(state.runs).toBe(2);
  });

  it("spaces runs by minGapMs but runs a call after a quiet spell at once", async () => {
    const { state, task } = recorder(1);
    const runs = coalesce(task, { minGapMs: 80 });
    const t0 = performance.now();
    await runs.run();
    await runs.run();
    await runs.run();
    expect(state.starts[0]! - t0).toBeLessThan(40);
    expect(state.starts[1]! - state.starts[0]!).toBeGreaterThanOrEqual(80);
    expect(state.starts[2]! - state.starts[1]!).toBeGreaterThanOrEqual(80);
    await sleep(100);
    const quiet = performance.now();
    await runs.run();
    expect(state.starts[3]! - quiet).toBeLessThan(40);
  });

  it("lets calls made before a run starts share it", async () => {
    const { state, task } = recorder(5);
    const runs = coalesce(task);
    await Promise.all([runs.run(), runs.run(), runs.run()]);
    expect(state.runs).toBe(1);
  });

  it("idle waits for the run in flight and the one queued", async () => {
    const { state, task } = recorder(20);
    const runs = coalesce(task);
    void runs.run();
    await sleep(5);
    void runs.run();
    await runs.idle();
    expect(state.runs).toBe(2);
  });
});
