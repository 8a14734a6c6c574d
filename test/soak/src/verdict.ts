// "None may grow without bound", made checkable: the first third of the samples is warm-up; the
// last third is compared with the middle third. Memory may not keep climbing, queues may not
// keep filling, latency may not keep worsening.
import type { Percentiles } from "./latency.js";

export interface Sample {
  /** Seconds since the steady load started. */
  t: number;
  /** Bytes per process (PSS). */
  memory: Record<string, number>;
  /** Per Node service that reports it (/metrics): its heap and external memory just after its
   * latest full collection, and how many full collections it has had. */
  liveHeap?: Record<string, { bytes: number; collections: number }>;
  /** Per process that maps shared memory segments (PostgreSQL): how much of its PSS is their pages,
   * and their size. */
  sharedMemory?: Record<string, { bytes: number; segment: number }>;
  latency: Record<string, Percentiles>;
  queues: { outboxBacklog: number; deliveriesPending: number; consumerLag: number };
}

/** What a process's memory was judged on. */
export type MemoryBasis = "pss" | "heap after full collections" | "outside shared memory";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** On a memory check that judges a process: which process, and on what (the report says so). */
  judged?: { process: string; on: MemoryBasis };
}

export interface VerdictLimits {
  /** Memory: mean of the last third may exceed the middle third's by this fraction... */
  memoryGrowthFraction: number;
  /** ...plus this many bytes (garbage-collected heaps breathe by tens of MiB). */
  memoryGrowthBytes: number;
  /** A slow leak hides under that margin: memory also fails when it climbs faster than this (per
   * minute) through both the middle and the last third and the last is this much higher. */
  memoryClimbBytesPerMinute: number;
  memoryClimbBytes: number;
  /** The climb is judged only when the middle and last thirds span this many seconds: over a
   * few minutes a garbage-collected heap still grows towards its working size (the CI run). */
  memoryClimbMinSpanSeconds: number;
  /** Queues: the last third's maximum may be this many times the middle third's maximum... */
  queueGrowthFactor: number;
  /** ...plus this many items (what a few seconds of load keep in flight). */
  queueSlack: number;
  /** Latency: median of the windows' p99 (p50 for sparse operations) in the last third ≤ factor × middle third's + slack. */
  latencyFactor: number;
  latencySlackMs: number;
  /** Windows need this many requests (median) for their p99 to be judged; else the p50 is. */
  p99MinCount: number;
}

export const DEFAULT_LIMITS: VerdictLimits = {
  memoryGrowthFraction: 0.15,
  memoryGrowthBytes: 24 * 2 ** 20,
  memoryClimbBytesPerMinute: 2 ** 20,
  memoryClimbBytes: 8 * 2 ** 20,
  memoryClimbMinSpanSeconds: 600,
  queueGrowthFactor: 2,
  queueSlack: 50,
  latencyFactor: 2,
  latencySlackMs: 100,
  p99MinCount: 100,
};

const MiB = 2 ** 20;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Least-squares slope of value over time, per minute. */
export function slopePerMinute(points: { t: number; v: number }[]): number {
  if (points.length < 2) return 0;
  const mt = mean(points.map((p) => p.t));
  const mv = mean(points.map((p) => p.v));
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

export function thirds<T>(samples: T[]): { warmup: T[]; middle: T[]; last: T[] } {
  const a = Math.floor(samples.length / 3);
  const b = Math.floor((2 * samples.length) / 3);
  return { warmup: samples.slice(0, a), middle: samples.slice(a, b), last: samples.slice(b) };
}

/** Operations whose latency is judged: the merchant's requests and the time to the final webhook. */
export function judgedOperation(operation: string): boolean {
  return operation.startsWith("POST") || operation.includes("final webhook");
}

/**
 * The local networks stand in for Solana and Sui: they keep their whole ledger in memory by design
 * (docs/solana-localnet.md, docs/sui-localnet.md), so their memory grows with every transaction.
 * Recorded, not judged: they are not part of what Gateway runs in production.
 */
export const NOT_JUDGED: Record<string, string> = {
  "solana-localnet": "the local Solana network keeps every transaction in memory by design",
  "sui-localnet":
    "the local Sui network keeps every transaction, checkpoint and coin version in memory by design",
};

/** One process's memory over the middle and last thirds, by the growth and climb rules. */
function judgeGrowth(
  middle: { t: number; v: number }[],
  last: { t: number; v: number }[],
  limits: VerdictLimits,
): { ok: boolean; detail: string } {
  const m = middle.map((p) => p.v);
  const l = last.map((p) => p.v);
  const limit = mean(m) * (1 + limits.memoryGrowthFraction) + limits.memoryGrowthBytes;
  const span = last[last.length - 1]!.t - middle[0]!.t;
  const climbing =
    span >= limits.memoryClimbMinSpanSeconds &&
    slopePerMinute(middle) > limits.memoryClimbBytesPerMinute &&
    slopePerMinute(last) > limits.memoryClimbBytesPerMinute &&
    mean(l) - mean(m) > limits.memoryClimbBytes;
  const slope = slopePerMinute([...middle, ...last]) / MiB;
  return {
    ok: mean(l) <= limit && !climbing,
    detail: `middle ${(mean(m) / MiB).toFixed(1)} MiB → last ${(mean(l) / MiB).toFixed(1)} MiB (limit ${(limit / MiB).toFixed(1)}), slope ${slope >= 0 ? "+" : ""}${slope.toFixed(2)} MiB/min${climbing ? ", climbing through both thirds" : ""}`,
  };
}

/** The readings taken after a full collection the sample before had not seen: a process that did
 * not collect between two samples repeats its last figure, which says nothing new. */
function freshLiveHeap(samples: Sample[], name: string): Map<Sample, number> {
  const fresh = new Map<Sample, number>();
  let seen: number | undefined;
  for (const sample of samples) {
    const reading = sample.liveHeap?.[name];
    if (reading && reading.collections !== seen) fresh.set(sample, reading.bytes);
    if (reading) seen = reading.collections;
  }
  return fresh;
}

/** The heap after the latest full collection, as the last sample of `part` that has one reads it. */
function latestLiveHeap(part: Sample[], name: string): { t: number; v: number } | undefined {
  const sample = part.findLast((s) => s.liveHeap?.[name] !== undefined);
  return sample ? { t: sample.t, v: sample.liveHeap![name]!.bytes } : undefined;
}

/** PSS of shared memory may pass the segments' size by this much: the rollup and the mappings are
 * read one after the other, and PostgreSQL maps small dynamic segments for a query's life. */
const SEGMENT_READ_SLACK = 4 * 2 ** 20;

/**
 * A process with shared memory segments is judged on the rest of its memory, and its shared pages
 * against the segments' size. PostgreSQL sizes its shared buffers when it starts; their pages count
 * in PSS as its processes first touch them, so its PSS rises while the buffers fill and never past
 * their size: what could leak is the backends' own memory. Here the 128 MiB buffers are full within
 * the first minute (2026-11-24 23:16 run), so the split changes little; with production-sized
 * buffers filling for hours, judging PSS whole would call the filling a leak.
 */
function judgeWithSharedMemory(
  name: string,
  middle: Sample[],
  last: Sample[],
  limits: VerdictLimits,
): Check[] | undefined {
  const part = [...middle, ...last];
  if (!part.some((s) => (s.sharedMemory?.[name]?.segment ?? 0) > 0)) return undefined;
  const own = (samples: Sample[]) =>
    samples.flatMap((s) =>
      s.memory[name] === undefined
        ? []
        : [{ t: s.t, v: s.memory[name] - (s.sharedMemory?.[name]?.bytes ?? 0) }],
    );
  const rest = judgeGrowth(own(middle), own(last), limits);
  const readings = part.flatMap((s) => (s.sharedMemory?.[name] ? [s.sharedMemory[name]] : []));
  const over = readings.filter((r) => r.bytes > r.segment + SEGMENT_READ_SLACK);
  const most = Math.max(...readings.map((r) => r.bytes));
  const segment = Math.max(...readings.map((r) => r.segment));
  return [
    {
      name: `memory ${name} (outside shared memory)`,
      ok: rest.ok,
      detail: rest.detail,
      judged: { process: name, on: "outside shared memory" },
    },
    {
      name: `memory ${name} (shared memory)`,
      ok: over.length === 0,
      detail: `at most ${(most / MiB).toFixed(1)} MiB of segments of ${(segment / MiB).toFixed(1)} MiB${over.length > 0 ? `; ${over.length} readings above their segments` : ": bounded by their size, set at start"}`,
    },
  ];
}

/**
 * A Node service's heap is judged after full collections when each third has this many fresh.
 * One is enough: V8 collects fully when its old generation reaches a limit it sets from what the
 * last collection left, so a process whose live data grows collects more often, not less. A third
 * with a single collection is one in which the old generation took that long to fill: the resident
 * size that grew meanwhile is garbage V8 had not yet needed back (settlement in a 3-minute soak
 * of 2026-11-28 12:13: 16 → 17 collections in the last third, heap after each flat at 58-60 MiB,
 * its PSS 165 → 204 MiB; in CI's soak of 11:53 its PSS went 200 → 261 MiB and failed the run). With none in
 * the middle third, the process is judged on its resident size; with none in the last alone, see
 * below.
 */
const MIN_FRESH_LIVE_READINGS = 1;

export function judge(
  samples: Sample[],
  limits: VerdictLimits = DEFAULT_LIMITS,
  notJudged: Record<string, string> = NOT_JUDGED,
): Check[] {
  const { middle, last } = thirds(samples);
  if (middle.length < 2 || last.length < 2) {
    return [
      { name: "enough samples", ok: false, detail: `${samples.length} samples; at least 6 are needed` },
    ];
  }
  const checks: Check[] = [];
  const processes = new Set(samples.flatMap((s) => Object.keys(s.memory)));
  for (const name of [...processes].sort()) {
    const series = (part: Sample[]) =>
      part.flatMap((s) => (s.memory[name] === undefined ? [] : [{ t: s.t, v: s.memory[name] }]));
    const m = series(middle);
    const l = series(last);
    if (m.length === 0 || l.length === 0) {
      checks.push({ name: `memory ${name}`, ok: false, detail: "process missing from part of the run" });
      continue;
    }
    const resident = judgeGrowth(m, l, limits);
    const reason = notJudged[name];
    if (reason) {
      checks.push({
        name: `memory ${name} (recorded, not judged)`,
        ok: true,
        detail: `${resident.detail}: ${reason}`,
      });
      continue;
    }
    const withShared = judgeWithSharedMemory(name, middle, last, limits);
    if (withShared) {
      checks.push(...withShared, {
        name: `memory ${name} (PSS, recorded)`,
        ok: true,
        detail: `${resident.detail}: judged outside its shared memory`,
      });
      continue;
    }
    // A garbage-collected process's resident size follows when its collector ran; what it keeps
    // is its heap after a full collection. That is judged where the process reports it often
    // enough, and its resident size is recorded beside it.
    const fresh = freshLiveHeap(samples, name);
    const liveOf = (part: Sample[]) =>
      part.flatMap((s) => (fresh.has(s) ? [{ t: s.t, v: fresh.get(s)! }] : []));
    const lm = liveOf(middle);
    let ll = liveOf(last);
    // No full collection in the last third after some in the middle: V8 collects once its old
    // generation reaches a limit set from the latest collection's heap, so the heap cannot have
    // grown past that limit unseen, and the latest reading stands for the third (CI's soak of
    // 2026-11-28 12:35 had one collection in settlement's last third, 7 → 8, its PSS +45 MiB/min).
    const carried = ll.length === 0 && lm.length > 0 ? latestLiveHeap(last, name) : undefined;
    if (carried) ll = [carried];
    if (lm.length >= MIN_FRESH_LIVE_READINGS && ll.length >= MIN_FRESH_LIVE_READINGS) {
      const live = judgeGrowth(lm, ll, limits);
      checks.push({
        name: `memory ${name} (heap after full collections)`,
        ok: live.ok,
        detail: `${live.detail}; ${lm.length + ll.length} readings${carried ? ", none new in the last third: the latest one stands for it" : ""}`,
        judged: { process: name, on: "heap after full collections" },
      });
      checks.push({
        name: `memory ${name} (resident, recorded)`,
        ok: true,
        detail: `${resident.detail}: judged on its heap after full collections`,
      });
      continue;
    }
    checks.push({
      name: `memory ${name}`,
      ok: resident.ok,
      detail: resident.detail,
      judged: { process: name, on: "pss" },
    });
  }
  for (const queue of ["outboxBacklog", "deliveriesPending", "consumerLag"] as const) {
    const m = Math.max(...middle.map((s) => s.queues[queue]));
    const l = Math.max(...last.map((s) => s.queues[queue]));
    const limit = m * limits.queueGrowthFactor + limits.queueSlack;
    checks.push({
      name: `queue ${queue}`,
      ok: l <= limit,
      detail: `max middle ${m} → max last ${l} (limit ${limit})`,
    });
  }
  // A window's p99 of fewer than 100 requests is its slowest request, which on a shared machine
  // follows the neighbours' bursts: such operations are judged on their median instead.
  const operations = new Set(samples.flatMap((s) => Object.keys(s.latency)).filter(judgedOperation));
  for (const operation of [...operations].sort()) {
    const counts = [...middle, ...last].map((s) => s.latency[operation]?.count ?? 0);
    const stat = median(counts) >= limits.p99MinCount ? "p99" : "p50";
    const of = (part: Sample[]) =>
      part
        .map((s) => s.latency[operation]?.[stat])
        .filter((v): v is number => v !== undefined && !Number.isNaN(v));
    const m = of(middle);
    const l = of(last);
    if (m.length === 0 || l.length === 0) continue;
    const limit = median(m) * limits.latencyFactor + limits.latencySlackMs;
    checks.push({
      name: `latency ${operation}`,
      ok: median(l) <= limit,
      detail: `median window ${stat}: middle ${median(m).toFixed(0)} ms → last ${median(l).toFixed(0)} ms (limit ${limit.toFixed(0)})`,
    });
  }
  return checks;
}
