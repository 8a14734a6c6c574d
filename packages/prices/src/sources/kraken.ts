// Kraken's public ticker: `GET /0/public/Ticker?pair=SOLUSD` answers
// `{"error":[],"result":{"SOLUSD":{"c":["150.12","1.0"],…}}}`; `c[0]` is the last trade. No
// timestamp either, so a reading is as fresh as our successful fetch.
import type { PricedCoin } from "@gateway/domain";
import { decimalToMicros, isPlausible } from "../micro-usd.js";
import {
  type Fetch,
  getJson,
  isRecord,
  joinUrl,
  type PriceSource,
  type Reading,
  type SourceResult,
} from "../source.js";

export const KRAKEN_PAIRS: Readonly<Record<PricedCoin, string>> = { SOL: "SOLUSD", SUI: "SUIUSD" };

export function createKrakenSource(options: {
  baseUrl: string;
  fetch?: Fetch;
  now?: () => number;
}): PriceSource {
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  return {
    name: "kraken",
    async read(coins, signal): Promise<SourceResult> {
      const readings: Reading[] = [];
      const refused: SourceResult["refused"] = [];
      await Promise.all(
        coins.map(async (coin) => {
          const pair = KRAKEN_PAIRS[coin];
          try {
            const body = await getJson(
              fetchFn,
              joinUrl(options.baseUrl, `/0/public/Ticker?pair=${pair}`),
              signal,
            );
            if (
              !isRecord(body) ||
              !Array.isArray(body.error) ||
              body.error.length > 0 ||
              !isRecord(body.result)
            ) {
              const errors =
                isRecord(body) && Array.isArray(body.error) ? body.error.join("; ") : "bad shape";
              refused.push({ coin, reason: `ticker error: ${errors}` });
              return;
            }
            // Kraken may key the answer by its own name for a pair; with one pair asked, one entry comes back.
            const entries = Object.values(body.result);
            const ticker = body.result[pair] ?? (entries.length === 1 ? entries[0] : undefined);
            const last = isRecord(ticker) && Array.isArray(ticker.c) ? ticker.c[0] : undefined;
            const micros = decimalToMicros(last);
            if (!isPlausible(micros)) refused.push({ coin, reason: `implausible price ${String(last)}` });
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
