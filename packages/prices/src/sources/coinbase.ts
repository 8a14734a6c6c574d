// Coinbase's spot price: `GET /v2/prices/SOL-USD/spot` answers
// `{"data":{"amount":"150.12","base":"SOL","currency":"USD"}}`. It carries no timestamp, so a
// reading is as fresh as our successful fetch.
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

export function createCoinbaseSource(options: {
  baseUrl: string;
  fetch?: Fetch;
  now?: () => number;
}): PriceSource {
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  return {
    name: "coinbase",
    async read(coins, signal): Promise<SourceResult> {
      const readings: Reading[] = [];
      const refused: SourceResult["refused"] = [];
      // One request per coin; a coin whose request fails is refused, the others still count.
      await Promise.all(
        coins.map(async (coin) => {
          try {
            const body = await getJson(
              fetchFn,
              joinUrl(options.baseUrl, `/v2/prices/${coin}-USD/spot`),
              signal,
            );
            const data = isRecord(body) && isRecord(body.data) ? body.data : undefined;
            if (!data || data.base !== coin || data.currency !== "USD") {
              refused.push({ coin, reason: "answer is not a USD spot price of this coin" });
              return;
            }
            const micros = decimalToMicros(data.amount);
            if (!isPlausible(micros))
              refused.push({ coin, reason: `implausible price ${String(data.amount)}` });
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
