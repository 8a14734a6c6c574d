// The webhook provider's registration of the watcher's ingress, and every price source.
import type { PriceConfig, WatcherSolanaConfig } from "@gateway/config";
import { priceSourcesFromConfig } from "@gateway/prices";
import { type Finding, fault, pass, plain, within } from "./finding.js";

export async function checkProvider(config: WatcherSolanaConfig): Promise<Finding> {
  if (!config.PROVIDER_API_URL) {
    return pass(
      "webhook provider",
      "PROVIDER_API_URL unset: the provider's webhook to WATCHER_PUBLIC_URL is registered by hand; reconciliation covers the rest",
    );
  }
  const url = new URL("/v0/webhooks", config.PROVIDER_API_URL);
  if (config.PROVIDER_API_KEY) url.searchParams.set("api-key", config.PROVIDER_API_KEY);
  try {
    const response = await within(fetch(url), 10_000, "provider");
    if (response.status === 401 || response.status === 403) {
      return fault(
        "webhook provider",
        `the provider refused the key (HTTP ${response.status})`,
        "PROVIDER_API_KEY",
      );
    }
    if (!response.ok)
      return fault("webhook provider", `the provider answered HTTP ${response.status}`, "PROVIDER_API_URL");
    const hooks = (await response.json()) as { webhookURL?: string }[];
    return hooks.some((h) => h.webhookURL === config.WATCHER_PUBLIC_URL)
      ? pass("webhook provider", `a webhook to ${config.WATCHER_PUBLIC_URL} is registered`)
      : fault(
          "webhook provider",
          `no webhook to ${config.WATCHER_PUBLIC_URL} is registered (${hooks.length} others): start watcher-solana, which registers it, or check the URL`,
          "WATCHER_PUBLIC_URL",
        );
  } catch (err) {
    return fault("webhook provider", `the provider did not answer: ${plain(err)}`, "PROVIDER_API_URL");
  }
}

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
