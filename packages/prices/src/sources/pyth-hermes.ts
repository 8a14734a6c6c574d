// Pyth through Hermes' REST API: `GET /v2/updates/price/latest?ids[]=<feed id>` answers
// `{"parsed":[{"id", "price":{"price","conf","expo","publish_time"}}]}`. Pyth says when the
// price was published, so freshness is publish_time, not the time we asked.
import type { PricedCoin } from "@gateway/domain";
import { isPlausible, pythToMicros } from "../micro-usd.js";
import {
  getJson,
  isRecord,
  joinUrl,
  type PriceSource,
  type Reading,
  SourceError,
  type SourceOptions,
  type SourceResult,
} from "../source.js";

/** Pyth's mainnet SOL/USD and SUI/USD feed ids. */
export const PYTH_FEED_IDS: Readonly<Record<PricedCoin, string>> = {
  SOL: "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d",
  SUI: "23d7315113f5b1d3ba7a83604c44b94d79f4fd69af77f804fc7f920a6dc65744",
};

/** A confidence interval wider than 2% of the price means the publishers disagree: not a price. */
const MAX_CONFIDENCE_BPS = 200n;
/** Clocks differ a little; a publish time further ahead than this is not believed. */
const MAX_FUTURE_MS = 10_000;

export function createPythHermesSource(options: SourceOptions): PriceSource {
  const fetchFn = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  return {
    name: "pyth",
    async read(coins, signal): Promise<SourceResult> {
      const query = coins.map((coin) => `ids[]=${PYTH_FEED_IDS[coin]}`).join("&");
      const body = await getJson(
        fetchFn,
        joinUrl(options.baseUrl, `/v2/updates/price/latest?${query}`),
        signal,
      );
      if (!isRecord(body) || !Array.isArray(body.parsed))
        throw new SourceError("no parsed prices in the answer");
      const readings: Reading[] = [];
      const refused: SourceResult["refused"] = [];
      for (const coin of coins) {
        const entry = body.parsed.find(
          (e: unknown) =>
            isRecord(e) && typeof e.id === "string" && e.id.replace(/^0x/, "") === PYTH_FEED_IDS[coin],
        ) as Record<string, unknown> | undefined;
        const price = isRecord(entry?.price) ? entry.price : undefined;
        if (!price) {
          refused.push({ coin, reason: "feed missing from the answer" });
          continue;
        }
        const micros = pythToMicros(price.price, price.expo);
        const conf = pythToMicros(price.conf, price.expo);
        const publishTime = price.publish_time;
        if (!isPlausible(micros)) {
          refused.push({ coin, reason: `implausible price ${String(price.price)}e${String(price.expo)}` });
        } else if (conf === undefined || conf * 10_000n > micros * MAX_CONFIDENCE_BPS) {
          refused.push({ coin, reason: "confidence interval too wide" });
        } else if (
          typeof publishTime !== "number" ||
          !Number.isSafeInteger(publishTime) ||
          publishTime <= 0
        ) {
          refused.push({ coin, reason: "no publish time" });
        } else if (publishTime * 1000 > now() + MAX_FUTURE_MS) {
          refused.push({ coin, reason: "publish time in the future" });
        } else {
          readings.push({ coin, micros, at: publishTime * 1000 });
        }
      }
      return { readings, refused };
    },
  };
}
