// The price cache: every source is read in the background on a timer, its last good readings
// kept; a request asks `price(coin)` and gets the verdict of the readings in memory at that
// moment. Nothing on a request path ever waits for a feed.
import type { PricedCoin } from "@gateway/domain";
import type { Logger } from "@gateway/logging";
import { aggregatePrice, type PriceRules, type PriceVerdict, type SourceReading } from "./aggregate.js";
import type { PriceSource, Reading, SourceResult } from "./source.js";

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

/** Each source's last good readings and its last failure. */
class SourceBook {
  readonly #log: Logger;
  readonly #latest = new Map<string, Map<PricedCoin, Reading>>();
  readonly #errors = new Map<string, string | null>();
  readonly #failureCounts = new Map<string, number>();

  constructor(log: Logger) {
    this.#log = log;
  }

  keep(source: string, result: SourceResult) {
    const kept = this.#latest.get(source) ?? new Map<PricedCoin, Reading>();
    for (const reading of result.readings) {
      // A reading older than the one kept (a lagging replica of the feed) does not replace it.
      const previous = kept.get(reading.coin);
      if (!previous || reading.at >= previous.at) kept.set(reading.coin, reading);
    }
    this.#latest.set(source, kept);
    if (result.refused.length > 0) {
      this.fail(source, result.refused.map((r) => `${r.coin}: ${r.reason}`).join("; "));
    } else {
      if (this.#errors.get(source)) this.#log.info({ source }, "price source recovered");
      this.#errors.set(source, null);
    }
  }

  fail(source: string, reason: string) {
    this.#failureCounts.set(source, (this.#failureCounts.get(source) ?? 0) + 1);
    // Logged when a source starts failing or fails differently, not on every round.
    if (this.#errors.get(source) !== reason) this.#log.warn({ source, reason }, "price source failed");
    this.#errors.set(source, reason);
  }

  readingsOf(coin: PricedCoin): SourceReading[] {
    const out: SourceReading[] = [];
    for (const [source, byCoin] of this.#latest) {
      const reading = byCoin.get(coin);
      if (reading) out.push({ source, micros: reading.micros, at: reading.at });
    }
    return out;
  }

  status(source: string): SourceStatus {
    return {
      source,
      error: this.#errors.get(source) ?? null,
      readings: [...(this.#latest.get(source)?.values() ?? [])],
    };
  }

  failures(source: string): number {
    return this.#failureCounts.get(source) ?? 0;
  }
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
  const book = new SourceBook(options.log);
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let current: Promise<void> = Promise.resolve();

  async function readSource(source: PriceSource) {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      book.keep(source.name, await source.read(coins, signal));
    } catch (err) {
      book.fail(source.name, err instanceof Error ? err.message : String(err));
    }
  }

  async function refresh() {
    await Promise.all(options.sources.map(readSource));
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
    price: (coin) => aggregatePrice(coin, book.readingsOf(coin), now(), rules),
    refresh,
    status: () => options.sources.map((s) => book.status(s.name)),
    failures: (source) => book.failures(source),
  };
}
