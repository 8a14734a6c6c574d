export type { AccountSnapshot, Chain, Commitment, TokenBalance, TransactionRecord } from "./chain.js";
export { createSolanaCustomerPool, type SolanaCustomerPool } from "./customer-pool.js";
export type { EnhancedTransaction } from "./enhanced-transaction.js";
export { enhanceTransaction } from "./enhanced-transaction.js";
export { type Coin, MAINNET_MINTS, STABLECOIN_DECIMALS, type Stablecoin } from "./faucet.js";
export {
  createSolanaLocalnet,
  type LocalnetInfo,
  type SolanaLocalnet,
  type SolanaLocalnetOptions,
} from "./localnet.js";
export { loadOrCreateWallet, type PayOptions, type PayResult, payFromLocalWallet } from "./pay.js";
export { formatUnits, parseUnits } from "./token.js";
export type { DeliveryLogEntry, Webhook, WebhookControls, Webhooks } from "./webhooks.js";
