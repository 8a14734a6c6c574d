import { describe, expect, it } from "vitest";
import { nextAttemptAt, retryDelayMs } from "./retry-schedule.js";

describe("retry schedule", () => {
  const schedule = [10_000, 60_000, 300_000];
  it("follows the schedule and repeats its last step", () => {
    expect([1, 2, 3, 4, 9].map((n) => retryDelayMs(n, schedule))).toEqual([
      10_000, 60_000, 300_000, 300_000, 300_000,
    ]);
  });
  it("stops at the retry window", () => {
    const now = new Date(0);
    expect(nextAttemptAt(1, now, new Date(10_000), schedule)?.getTime()).toBe(10_000);
    expect(nextAttemptAt(1, now, new Date(9_999), schedule)).toBeUndefined();
  });
});
