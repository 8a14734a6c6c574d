// Coinbase's spot price: `GET /v2/prices/SOL-USD/spot` answers
// `{"data":{"amount":"150.12","base":"SOL","currency":"USD"}}`. It carries no timestamp, so a
// reading is as fresh as our successful fetch.
import { isRecord, type PriceSource, perCoinTicker, type SourceOptions } from "../source.js";

export function createCoinbaseSource(options: SourceOptions): PriceSource {
  return perCoinTicker(
    "coinbase",
    options,
    (coin) => `/v2/prices/${coin}-USD/spot`,
    (body, coin) => {
      const data = isRecord(body) && isRecord(body.data) ? body.data : undefined;
      if (!data || data.base !== coin || data.currency !== "USD")
        return { refused: "answer is not a USD spot price of this coin" };
      return { price: data.amount };
    },
  );
}
