// The chain's watcher (`@gateway/chain-sui/watcher`), apart from its settlement: the watcher service
// (services/watcher, WATCHER_CHAIN=sui) loads only this.
export {
  CHECKPOINT_READ_MASK,
  type RawCheckpoint,
  toWatched,
  type WatchedCheckpoint,
} from "./checkpoint-source.js";
export {
  type CheckpointTransaction,
  type CoinTypes,
  depositsOf,
  normalizeCoinTypes,
} from "./deposits-in-transaction.js";
export { suiWatcher } from "./module.js";
export { PARTITIONS, partitionOfAddress } from "./partitions.js";
export {
  type SuiWatcher,
  type SuiWatcherOptions,
  type SuiWatcherStatus,
  startSuiWatcher,
} from "./watcher.js";
