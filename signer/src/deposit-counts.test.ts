import { describe, expect, it } from "vitest";
import { DepositCounts } from "./deposit-counts.js";

describe("deposit sweep counts", () => {
  it("counts sweeps per deposit, near and far, and keeps them through a snapshot", () => {
    const counts = new DepositCounts();
    for (const key of ["solana:live:5", "solana:live:5", "sui:test:5", "solana:live:9000000"])
      counts.add(key);
    expect([
      counts.get("solana:live:5"),
      counts.get("sui:test:5"),
      counts.get("solana:live:9000000"),
    ]).toEqual([2, 1, 1]);
    expect(counts.get("solana:live:6")).toBe(0);
    expect(counts.size()).toBe(3);
    const copy = DepositCounts.restore(JSON.parse(JSON.stringify(counts.snapshot())));
    expect(copy.get("solana:live:5")).toBe(2);
    expect(copy.get("solana:live:9000000")).toBe(1);
    expect(copy.size()).toBe(3);
  });
});
