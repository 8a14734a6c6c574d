export {
  type AddressRegistry,
  createHeliusRegistry,
  type HeliusRegistryOptions,
} from "./address-registry.js";
export { type DepositLookup, depositsInTransaction, type FoundDeposit } from "./deposits-in-transaction.js";
export { createOpenAddresses, type OpenAddress, type OpenAddresses } from "./open-addresses.js";
export { createReplicaMembership, type ReplicaMembership, rendezvousOwner } from "./replicas.js";
export { type SolanaWatcher, type SolanaWatcherOptions, startSolanaWatcher } from "./watcher.js";
