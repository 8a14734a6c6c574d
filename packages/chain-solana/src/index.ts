export { solanaConnection } from "./connection.js";
export {
  type FailedIntentRetry,
  type FailedIntentRetryOptions,
  RetryRefusedError,
  retryFailedIntent,
} from "./failed-intent-retry.js";
export { createIntentJournal, type IntentJournal, type IntentRecord } from "./intent-journal.js";
export {
  attemptIntentId,
  createSolanaIntentRunner,
  type SolanaIntentRunner,
  type SolanaIntentSpec,
} from "./intent-runner.js";
export { createNoncePool, type NoncePool } from "./nonce-pool.js";
export {
  createSolanaProbe,
  type SolanaPreflightConfig,
  type SolanaProbeOptions,
  solanaProbeFromConfig,
} from "./preflight.js";
export {
  createSolanaSettlement,
  feePayerSpend,
  type SolanaSettlement,
  SolanaSettlementError,
  type SolanaSettlementOptions,
  signerIntentId,
  solanaPayoutIntent,
} from "./solana-settlement.js";
export { canStillLand, nonceOf, solanaTransactionOutcome } from "./transaction-outcome.js";
