// The price cache: every source is read in the background on a timer, its last good readings
// kept; a request asks `price(coin)` and gets the verdict of the readings in memory at that
// moment. Nothing on a request path ever waits for a feed.
import type { PricedCoin } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { aggregatePrice, type PriceRules, type PriceVerdict, type SourceReading } from "./aggregate.js";
import type { PriceSource, Reading } from "./source.js";

export interface PriceServiceOptions {
  sources: readonly PriceSource[];
  coins?: readonly PricedCoin[];
  maxAgeSeconds: number;
  maxDeviationBps: number;
  /** How often every source is read. */
  refreshMs: number;
  /** A source slower than this counts as failed for that round. */
  timeoutMs?: number;
  log: Logger;
  now?: () => number;
}

export interface SourceStatus {
  source: string;
  /** The last round's failure, or null when it answered. */
  error: string | null;
  readings: Reading[];
}

export interface PriceService {
  /** Reads every source once, then keeps refreshing in the background. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The current verdict for `coin`, from memory. */
  price(coin: PricedCoin): PriceVerdict;
  /** One refresh round (the timer calls it; tests may too). */
  refresh(): Promise<void>;
  /** What each source last said, for metrics and operators. */
  status(): SourceStatus[];
  readonly coins: readonly PricedCoin[];
  now(): number;
  failures(source: string): number;
}

export function createPriceService(options: PriceServiceOptions): PriceService {
  const coins = options.coins ?? (["SOL", "SUI"] as const);
  const now = options.now ?? Date.now;
  const rules: PriceRules = {
    maxAgeMs: options.maxAgeSeconds * 1000,
    maxDeviationBps: BigInt(options.maxDeviationBps),
    minSources: 2,
  };
  const timeoutMs = options.timeoutMs ?? Math.min(5000, Math.max(500, options.refreshMs));
  const latest = new Map<string, Map<PricedCoin, Reading>>();
  const errors = new Map<string, string | null>();
  const failureCounts = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let current: Promise<void> = Promise.resolve();

  function noteFailure(source: string, reason: string) {
    failureCounts.set(source, (failureCounts.get(source) ?? 0) + 1);
    // Logged when a source starts failing or fails differently, not on every round.
    if (errors.get(source) !== reason) options.log.warn({ source, reason }, "price source failed");
    errors.set(source, reason);
  }

  async function readSource(source: PriceSource) {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const result = await source.read(coins, signal);
      const kept = latest.get(source.name) ?? new Map<PricedCoin, Reading>();
      for (const reading of result.readings) {
        // A reading older than the one kept (a lagging replica of the feed) does not replace it.
        const previous = kept.get(reading.coin);
        if (!previous || reading.at >= previous.at) kept.set(reading.coin, reading);
      }
      latest.set(source.name, kept);
      if (result.refused.length > 0) {
        noteFailure(source.name, result.refused.map((r) => `${r.coin}: ${r.reason}`).join("; "));
      } else {
        if (errors.get(source.name)) options.log.info({ source: source.name }, "price source recovered");
        errors.set(source.name, null);
      }
    } catch (err) {
      noteFailure(source.name, err instanceof Error ? err.message : String(err));
    }
  }

  async function refresh() {
    await Promise.all(options.sources.map(readSource));
  }

  function readingsOf(coin: PricedCoin): SourceReading[] {
    const out: SourceReading[] = [];
    for (const [source, byCoin] of latest) {
      const reading = byCoin.get(coin);
      if (reading) out.push({ source, micros: reading.micros, at: reading.at });
    }
    return out;
  }

  const tick = async () => {
    if (!running) return;
    current = refresh();
    await current;
    if (running) timer = setTimeout(tick, options.refreshMs);
  };

  return {
    coins,
    now,
    async start() {
      running = true;
      current = refresh();
      await current;
      if (running) timer = setTimeout(tick, options.refreshMs);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
    price: (coin) => aggregatePrice(coin, readingsOf(coin), now(), rules),
    refresh,
    status: () =>
      options.sources.map((s) => ({
        source: s.name,
        error: errors.get(s.name) ?? null,
        readings: [...(latest.get(s.name)?.values() ?? [])],
      })),
    failures: (source) => failureCounts.get(source) ?? 0,
  };
}
