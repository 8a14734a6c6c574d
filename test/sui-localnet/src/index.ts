export { coinObjectType, decodeCoinContents, type StoredCoin, storeCoin } from "./coin-object.js";
export { type CoinInfo, type CoinSymbol, formatAmount, parseDecimalAmount } from "./coins.js";
export { createSuiCustomerPool, type SuiCustomerPool } from "./customer-pool.js";
export { deriveObjectId, hashTyped, objectDigest, transactionDigest } from "./digests.js";
export type { FaucetGrant } from "./faucet.js";
export type { CheckpointRecord, Ledger, TransactionRecord } from "./ledger.js";
export {
  createSuiLocalnet,
  type LocalnetInfo,
  type SuiLocalnet,
  type SuiLocalnetOptions,
} from "./localnet.js";
export { pay } from "./pay.js";
export { type RejectionReason, TransactionRejected } from "./rejection.js";
export { sealedAt } from "./sealed-at.js";
