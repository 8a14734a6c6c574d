import type { PricedCoin } from "@gateway/domain";
import { decimalToMicros, isPlausible } from "./micro-usd.js";

/** One source's price of one coin, and the time it describes (epoch ms). */
export interface Reading {
  coin: PricedCoin;
  /** Micro-USD per whole coin. */
  micros: bigint;
  at: number;
}

/** A public price feed, read in its own format over HTTP. */
export interface PriceSource {
  name: string;
  /** The coins it could read; a coin it could not read (or refused) is left out, with why. */
  read(coins: readonly PricedCoin[], signal: AbortSignal): Promise<SourceResult>;
}

export interface SourceResult {
  readings: Reading[];
  refused: { coin: PricedCoin; reason: string }[];
}

/** The feed's whole answer was unusable (HTTP error, not JSON, wrong shape). */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

export type Fetch = typeof fetch;

/** `base` + `path`, whatever the slashes, keeping any path prefix of `base`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** GET and parse JSON, turning every failure into a SourceError that says what happened. */
export async function getJson(fetchFn: Fetch, url: string, signal: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { signal, headers: { accept: "application/json" } });
  } catch (err) {
    throw new SourceError(`request failed: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const text = await response.text().catch(() => "");
  if (!response.ok) throw new SourceError(`HTTP ${response.status}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SourceError("answer is not JSON", { cause: err });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a source is read, and (for tests) how. */
export interface SourceOptions {
  baseUrl: string;
  fetch?: Fetch;
  now?: () => number;
}

/**
 * A feed read with one request per coin and no timestamp of its own (exchange tickers): a reading
 * is as fresh as our successful fetch. `parse` returns the price as a decimal string, or a
 * refusal's reason; a coin whose request or answer fails is refused, the others still count.
 */
export function perCoinTicker(
  name: string,
  options: SourceOptions,
  path: (coin: PricedCoin) => string,
  parse: (body: unknown, coin: PricedCoin) => { price: unknown } | { refused: string },
): PriceSource {
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  return {
    name,
    async read(coins, signal): Promise<SourceResult> {
      const readings: Reading[] = [];
      const refused: SourceResult["refused"] = [];
      await Promise.all(
        coins.map(async (coin) => {
          try {
            const parsed = parse(await getJson(fetchFn, joinUrl(options.baseUrl, path(coin)), signal), coin);
            if ("refused" in parsed) return void refused.push({ coin, reason: parsed.refused });
            const micros = decimalToMicros(parsed.price);
            if (!isPlausible(micros))
              refused.push({ coin, reason: `implausible price ${String(parsed.price)}` });
            else readings.push({ coin, micros, at: now() });
          } catch (err) {
            refused.push({ coin, reason: err instanceof Error ? err.message : String(err) });
          }
        }),
      );
      return { readings, refused };
    },
  };
}
