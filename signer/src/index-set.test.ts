import { describe, expect, it } from "vitest";
import { IndexSet } from "./index-set.js";

describe("the deposit indices handed out, one bit each", () => {
  it("holds every index added and no other, across growth of the bitmap", () => {
    const set = new IndexSet();
    const added = new Set<number>();
    // Dense from 0 with gaps, as PostgreSQL's sequence gives them, far past the first bitmap.
    for (let i = 0; i < 300_000; i += 1 + (i % 7 === 0 ? 2 : 0)) {
      set.add(i);
      added.add(i);
    }
    const wrong: number[] = [];
    for (let i = 0; i < 310_000; i++) if (set.has(i) !== added.has(i)) wrong.push(i);
    expect(wrong).toEqual([]);
    // 300,000 indices in about 45 KiB, where a Set spent 20–30 bytes an index (6–9 MB).
    expect(set.bytes()).toBeLessThan(50_000);
  });

  it("keeps an index far past the bitmap apart, so a request cannot make the bitmap large", () => {
    const set = new IndexSet();
    set.add(2 ** 31 - 1);
    expect(set.has(2 ** 31 - 1)).toBe(true);
    expect(set.has(2 ** 31 - 2)).toBe(false);
    expect(set.bytes()).toBeLessThan(10_000);
    // Stepping out as far as each request may grow it: at most 16 KiB a request.
    const before = set.bytes();
    for (let step = 1; step <= 10; step++) set.add(step * 2 ** 16 + 8191);
    expect(set.bytes() - before).toBeLessThanOrEqual(10 * 16 * 1024);
  });

  it("still finds an index kept apart once the bitmap has grown over it", () => {
    const set = new IndexSet();
    const apart = 2 ** 16 * 3; // past the first bitmap and its growth step: kept apart
    set.add(apart);
    for (let i = 0; i < apart; i += 1000) set.add(i); // the bitmap grows over it
    expect(set.has(apart)).toBe(true);
    expect(set.has(apart - 1)).toBe(false);
    expect(set.has(apart + 1)).toBe(false);
  });
});
