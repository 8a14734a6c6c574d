export {
  aggregatePrice,
  type LivePrice,
  median,
  type PriceRules,
  type PriceVerdict,
  type SourceReading,
  spreadBps,
} from "./aggregate.js";
export { priceServiceFromConfig, priceSourcesFromConfig } from "./from-config.js";
export { priceMetrics } from "./metrics.js";
export { decimalToMicros, isPlausible, MAX_PLAUSIBLE_MICROS, pythToMicros } from "./micro-usd.js";
export { priceForMode, usdRateForMode } from "./mode-prices.js";
export {
  createPriceService,
  type PriceService,
  type PriceServiceOptions,
  type SourceStatus,
} from "./price-service.js";
export { type Fetch, type PriceSource, type Reading, SourceError, type SourceResult } from "./source.js";
export { createCoinbaseSource } from "./sources/coinbase.js";
export { createKrakenSource, KRAKEN_PAIRS } from "./sources/kraken.js";
export { createPythHermesSource, PYTH_FEED_IDS } from "./sources/pyth-hermes.js";
