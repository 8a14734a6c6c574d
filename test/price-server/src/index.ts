export { FEED_COINS, type FeedCoin, KRAKEN_PAIRS, PYTH_FEED_IDS, pythMantissa } from "./feeds.js";
export {
  createPriceServer,
  DEFAULT_PRICES,
  type PriceServer,
  type PriceServerOptions,
  SOURCE_NAMES,
  type SourceMode,
  type SourceName,
  type SourceState,
} from "./price-server.js";
