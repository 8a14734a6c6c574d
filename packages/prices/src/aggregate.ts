// From several sources' readings to one price: the median of the fresh ones, refused when
// fewer than two are fresh or when they disagree too much. Pure, so every rule is a unit test.
import type { PricedCoin } from "@gateway/domain";

export interface SourceReading {
  source: string;
  micros: bigint;
  /** Epoch ms the reading describes (publish time, or our fetch for feeds without one). */
  at: number;
}

export interface LivePrice {
  coin: PricedCoin;
  /** Micro-USD per whole coin: the median of the fresh readings. */
  micros: bigint;
  /** The oldest reading the median used: the price is at least this fresh. */
  at: number;
  /** (max − min) / median of the fresh readings, in basis points, rounded up. */
  spreadBps: bigint;
  sources: SourceReading[];
}

export type PriceVerdict = { ok: true; price: LivePrice } | { ok: false; reason: string };

export interface PriceRules {
  maxAgeMs: number;
  maxDeviationBps: bigint;
  /** Fewest fresh, agreeing sources a price needs. */
  minSources: number;
}

export function median(sorted: readonly bigint[]): bigint {
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid]!;
  // Even count: the mean of the two middle values, rounded half up.
  return (sorted[mid - 1]! + sorted[mid]! + 1n) / 2n;
}

export function spreadBps(sorted: readonly bigint[], middle: bigint): bigint {
  const range = sorted.at(-1)! - sorted[0]!;
  return (range * 10_000n + middle - 1n) / middle;
}

export function aggregatePrice(
  coin: PricedCoin,
  readings: readonly SourceReading[],
  now: number,
  rules: PriceRules,
): PriceVerdict {
  const fresh = readings.filter((r) => now - r.at <= rules.maxAgeMs && r.micros > 0n);
  if (fresh.length < rules.minSources) {
    return { ok: false, reason: `${fresh.length} fresh source(s) for ${coin}, ${rules.minSources} needed` };
  }
  const sorted = fresh.map((r) => r.micros).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const micros = median(sorted);
  const spread = spreadBps(sorted, micros);
  if (spread > rules.maxDeviationBps) {
    return {
      ok: false,
      reason: `${coin} sources disagree by ${spread} bps (at most ${rules.maxDeviationBps})`,
    };
  }
  const at = Math.min(...fresh.map((r) => r.at));
  return { ok: true, price: { coin, micros, at, spreadBps: spread, sources: [...fresh] } };
}
