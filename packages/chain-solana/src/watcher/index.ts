// The chain's watcher (`@gateway/chain-solana/watcher`), apart from its settlement: the watcher service
// (services/watcher, WATCHER_CHAIN=solana) loads only this.
export {
  type AddressRegistry,
  createHeliusRegistry,
  type HeliusRegistryOptions,
} from "./address-registry.js";
export { type DepositLookup, depositsInTransaction, type FoundDeposit } from "./deposits-in-transaction.js";
export { solanaWatcher } from "./module.js";
export { type SolanaWatcher, type SolanaWatcherOptions, startSolanaWatcher } from "./watcher.js";
export { startWebhookIngress, type WebhookIngress, type WebhookIngressOptions } from "./webhook-ingress.js";
