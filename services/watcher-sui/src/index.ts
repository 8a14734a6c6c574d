export { type CheckpointTransaction, type CoinTypes, depositsOf, normalizeCoinTypes } from "./match.js";
export { ownedPartitions, PARTITIONS, partitionOf } from "./partitions.js";
export {
  type SuiWatcher,
  type SuiWatcherOptions,
  type SuiWatcherStatus,
  startSuiWatcher,
} from "./watcher.js";
