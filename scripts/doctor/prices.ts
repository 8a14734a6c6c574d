// Every price source, as the API and settlement read them.
import type { PriceConfig } from "@gateway/config";
import { priceSourcesFromConfig } from "@gateway/prices";
import { type Finding, fault, pass, plain } from "./finding.js";

const SOURCE_VARIABLE = {
  pyth: "PRICE_PYTH_URL",
  coinbase: "PRICE_COINBASE_URL",
  kraken: "PRICE_KRAKEN_URL",
} as const;

export async function checkPrices(config: PriceConfig, now = Date.now): Promise<Finding[]> {
  const sources = priceSourcesFromConfig(config);
  return Promise.all(
    sources.map(async (source, i) => {
      const variable = SOURCE_VARIABLE[config.PRICE_SOURCES[i]!];
      try {
        const result = await source.read(["SOL", "SUI"], AbortSignal.timeout(10_000));
        const stale = result.readings.filter((r) => now() - r.at > config.PRICE_MAX_AGE_SECONDS * 1000);
        if (result.refused.length || result.readings.length < 2) {
          const why = result.refused.map((r) => `${r.coin}: ${r.reason}`).join("; ") || "no reading";
          return fault("prices", `${source.name} gave no usable SOL and SUI prices (${why})`, variable);
        }
        if (stale.length) {
          return fault("prices", `${source.name}'s prices are older than PRICE_MAX_AGE_SECONDS`, variable);
        }
        const shown = result.readings
          .map((r) => `${r.coin} ${(Number(r.micros) / 1e6).toFixed(2)} USD`)
          .join(", ");
        return pass("prices", `${source.name}: ${shown}`);
      } catch (err) {
        return fault("prices", `${source.name} did not answer: ${plain(err)}`, variable);
      }
    }),
  );
}
