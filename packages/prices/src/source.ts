import type { PricedCoin } from "@gateway/domain";

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
