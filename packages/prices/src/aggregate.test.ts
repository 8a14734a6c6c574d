import { describe, expect, it } from "vitest";
import { aggregatePrice, median, type PriceRules, type SourceReading } from "./aggregate.js";

const NOW = 1_700_000_000_000;
const rules: PriceRules = { maxAgeMs: 60_000, maxDeviationBps: 100n, minSources: 2 };
const r = (source: string, usd: number, ageSeconds = 0): SourceReading => ({
  source,
  micros: BigInt(Math.round(usd * 100)) * 10_000n,
  at: NOW - ageSeconds * 1000,
});

describe("median", () => {
  it("is the middle value, or the mean of the two middle ones rounded half up", () => {
    expect(median([1n, 2n, 9n])).toBe(2n);
    expect(median([1n, 2n])).toBe(2n);
    expect(median([2n, 4n])).toBe(3n);
    expect(median([150_000_000n, 150_500_000n, 150_200_000n].sort())).toBe(150_200_000n);
  });
});

describe("aggregatePrice", () => {
  it("takes the median of three agreeing fresh sources", () => {
    const verdict = aggregatePrice(
      "SOL",
      [r("pyth", 150.2), r("coinbase", 150), r("kraken", 150.5)],
      NOW,
      rules,
    );
    expect(verdict).toMatchObject({ ok: true, price: { coin: "SOL", micros: 150_200_000n } });
    // (150.50 − 150.00) / 150.20 = 33.3 bps, rounded up.
    expect(verdict.ok && verdict.price.spreadBps).toBe(34n);
  });

  it("prices from two fresh sources when the third is stale, and says how old the price is", () => {
    const verdict = aggregatePrice(
      "SOL",
      [r("pyth", 150, 61), r("coinbase", 151, 5), r("kraken", 150.6, 30)],
      NOW,
      rules,
    );
    expect(verdict).toMatchObject({ ok: true, price: { micros: 150_800_000n, at: NOW - 30_000 } });
    expect(verdict.ok && verdict.price.sources.map((s) => s.source)).toEqual(["coinbase", "kraken"]);
  });

  it("counts a reading exactly max-age old as fresh, and one millisecond more as stale", () => {
    const edge = { ...r("pyth", 150), at: NOW - 60_000 };
    expect(aggregatePrice("SOL", [edge, r("kraken", 150)], NOW, rules).ok).toBe(true);
    expect(aggregatePrice("SOL", [{ ...edge, at: edge.at - 1 }, r("kraken", 150)], NOW, rules).ok).toBe(
      false,
    );
  });

  it("refuses when fewer than two sources are fresh", () => {
    expect(aggregatePrice("SUI", [r("pyth", 3.5), r("coinbase", 3.5, 120)], NOW, rules)).toEqual({
      ok: false,
      reason: "1 fresh source(s) for SUI, 2 needed",
    });
    expect(aggregatePrice("SUI", [], NOW, rules).ok).toBe(false);
  });

  it("refuses when fresh sources disagree by more than the allowed deviation", () => {
    // 150.00 and 151.60: 106.1 bps of their median 150.80, rounded up to 107.
    const verdict = aggregatePrice("SOL", [r("pyth", 150), r("kraken", 151.6)], NOW, rules);
    expect(verdict).toEqual({ ok: false, reason: "SOL sources disagree by 107 bps (at most 100)" });
    // 150.00 and 151.50: 99.7 bps, rounded up to 100, allowed.
    expect(aggregatePrice("SOL", [r("pyth", 150), r("kraken", 151.5)], NOW, rules).ok).toBe(true);
  });

  it("refuses rather than ignore an outlier: two agreeing sources and a third far off", () => {
    const verdict = aggregatePrice(
      "SOL",
      [r("pyth", 150), r("coinbase", 150.1), r("kraken", 300)],
      NOW,
      rules,
    );
    expect(verdict.ok).toBe(false);
  });

  it("never uses a non-positive reading", () => {
    const zero = { ...r("kraken", 150), micros: 0n };
    expect(aggregatePrice("SOL", [r("pyth", 150), zero], NOW, rules).ok).toBe(false);
  });
});
