import { describe, expect, it } from "vitest";
import { repeatEvery } from "./repeat.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("repeatEvery", () => {
  it("never overlaps a step, goes on after a failure, and stop waits for the step under way", async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let finished = 0;
    const errors: unknown[] = [];
    const loop = repeatEvery(
      5,
      async () => {
        running++;
        most = Math.max(most, running);
        runs++;
        await sleep(20);
        running--;
        finished++;
        if (runs === 1) throw new Error("first step fails");
      },
      (err) => errors.push(err),
    );
    await sleep(80);
    await loop.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(finished).toBe(runs);
    expect(errors).toHaveLength(1);
    const after = runs;
    await sleep(40);
    expect(runs).toBe(after);
  });
});
