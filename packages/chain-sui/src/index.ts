export {
  type FailedIntentRetry,
  type FailedIntentRetryOptions,
  RetryRefusedError,
  retryFailedIntent,
} from "./failed-intent-retry.js";
export { attemptIntentId, createIntentStore, type IntentStore, type StoredAttempt } from "./intent-store.js";
export {
  createSuiProbe,
  type SuiPreflightConfig,
  type SuiProbeOptions,
  suiProbeFromConfig,
} from "./preflight.js";
export {
  createSuiSettlement,
  type SuiSettlement,
  type SuiSettlementOptions,
} from "./sui-settlement.js";
export {
  findSuiTransaction,
  type SuiTransactionView,
  suiTransactionOutcome,
} from "./transaction-outcome.js";
