// Latencies collected per sampling window and per operation, then summarised and reset.

export interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return {
    count: sorted.length,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export interface LatencyWindows {
  record(operation: string, ms: number): void;
  /** Every operation's percentiles since the last call, and a fresh window. */
  drain(): Record<string, Percentiles>;
}

export function createLatencyWindows(): LatencyWindows {
  let current = new Map<string, number[]>();
  return {
    record(operation, ms) {
      const list = current.get(operation);
      if (list) list.push(ms);
      else current.set(operation, [ms]);
    },
    drain() {
      const out: Record<string, Percentiles> = {};
      for (const [operation, values] of current) out[operation] = percentiles(values);
      current = new Map();
      return out;
    },
  };
}
