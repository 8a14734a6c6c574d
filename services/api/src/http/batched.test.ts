import { describe, expect, it } from "vitest";
import { batched } from "./batched.js";

describe("batched", () => {
  it("runs a lone item at once and gathers the items that arrive while a run is in flight", async () => {
    const runs: number[][] = [];
    let release = () => {};
    const double = batched(async (items: number[]) => {
      runs.push(items);
      if (runs.length === 1) await new Promise<void>((r) => (release = r));
      return items.map((n) => n * 2);
    });
    const first = double(1);
    expect(runs).toEqual([[1]]);
    const rest = [2, 3, 4].map((n) => double(n));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([2, 4, 6, 8]);
    expect(runs).toEqual([[1], [2, 3, 4]]);
  });

  it("rejects every item of a failed run, and carries on with the next", async () => {
    let fail = true;
    const run = batched(async (items: string[]) => {
      if (fail) throw new Error("boom");
      return items;
    });
    const failed = [run("a"), run("b")];
    for (const p of failed) await expect(p).rejects.toThrow("boom");
    fail = false;
    expect(await run("c")).toBe("c");
  });
});
