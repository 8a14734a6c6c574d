// Kraken's public ticker: `GET /0/public/Ticker?pair=SOLUSD` answers
// `{"error":[],"result":{"SOLUSD":{"c":["150.12","1.0"],…}}}`; `c[0]` is the last trade. No
// timestamp either, so a reading is as fresh as our successful fetch.
import type { PricedCoin } from "@gateway/domain";
import { isRecord, type PriceSource, perCoinTicker, type SourceOptions } from "../source.js";

export const KRAKEN_PAIRS: Readonly<Record<PricedCoin, string>> = { SOL: "SOLUSD", SUI: "SUIUSD" };

export function createKrakenSource(options: SourceOptions): PriceSource {
  return perCoinTicker(
    "kraken",
    options,
    (coin) => `/0/public/Ticker?pair=${KRAKEN_PAIRS[coin]}`,
    (body, coin) => {
      if (!isRecord(body) || !Array.isArray(body.error) || body.error.length > 0 || !isRecord(body.result)) {
        const errors = isRecord(body) && Array.isArray(body.error) ? body.error.join("; ") : "bad shape";
        return { refused: `ticker error: ${errors}` };
      }
      // Kraken may key the answer by its own name for a pair; with one pair asked, one entry comes back.
      const entries = Object.values(body.result);
      const ticker = body.result[KRAKEN_PAIRS[coin]] ?? (entries.length === 1 ? entries[0] : undefined);
      return { price: isRecord(ticker) && Array.isArray(ticker.c) ? ticker.c[0] : undefined };
    },
  );
}
