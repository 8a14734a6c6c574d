import type { PriceConfig, PriceSourceName } from "@gateway/config";
import type { Logger } from "@gateway/logging";
import { createPriceService, type PriceService } from "./price-service.js";
import type { PriceSource } from "./source.js";
import { createCoinbaseSource } from "./sources/coinbase.js";
import { createKrakenSource } from "./sources/kraken.js";
import { createPythHermesSource } from "./sources/pyth-hermes.js";

function sourceFor(name: PriceSourceName, config: PriceConfig): PriceSource {
  switch (name) {
    case "pyth":
      return createPythHermesSource({ baseUrl: config.PRICE_PYTH_URL });
    case "coinbase":
      return createCoinbaseSource({ baseUrl: config.PRICE_COINBASE_URL });
    case "kraken":
      return createKrakenSource({ baseUrl: config.PRICE_KRAKEN_URL });
  }
}

/** Each source PRICE_SOURCES names, read where its PRICE_*_URL says (the doctor reads them one by one). */
export function priceSourcesFromConfig(config: PriceConfig): PriceSource[] {
  return config.PRICE_SOURCES.map((name) => sourceFor(name, config));
}

/** The price service as a service's PRICE_* variables describe it (not started). */
export function priceServiceFromConfig(config: PriceConfig, log: Logger): PriceService {
  return createPriceService({
    sources: priceSourcesFromConfig(config),
    maxAgeSeconds: config.PRICE_MAX_AGE_SECONDS,
    maxDeviationBps: config.PRICE_MAX_DEVIATION_BPS,
    refreshMs: config.PRICE_REFRESH_MS,
    log,
  });
}
