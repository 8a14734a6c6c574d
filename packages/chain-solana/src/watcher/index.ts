export {
  type AddressRegistry,
  createHeliusRegistry,
  type HeliusRegistryOptions,
} from "./address-registry.js";
export { type DepositLookup, depositsInTransaction, type FoundDeposit } from "./deposits-in-transaction.js";
export { solanaWatcher } from "./module.js";
export { type SolanaWatcher, type SolanaWatcherOptions, startSolanaWatcher } from "./watcher.js";
export { startWebhookIngress, type WebhookIngress, type WebhookIngressOptions } from "./webhook-ingress.js";
