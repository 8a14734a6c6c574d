export type {
  ChainWatcherModule,
  RunningWatcher,
  WatcherContext,
  WatcherServiceConfig,
} from "./chain-watcher-module.js";
export { type Coalesced, type CoalesceOptions, coalesce } from "./coalesce.js";
export {
  createOpenAddresses,
  type OpenAddress,
  type OpenAddresses,
  type OpenAddressesOptions,
  openAddressesChannel,
} from "./open-addresses.js";
export type { WatcherBasics } from "./options.js";
export { type Repeating, repeatEvery } from "./repeat.js";
export {
  createReplicaMembership,
  type ReplicaMembership,
  type ReplicaMembershipOptions,
} from "./replicas.js";
export { ownedPartitions, partitionOf, rendezvousOwner } from "./sharding.js";
