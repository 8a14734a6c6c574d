export {
  type FailedIntentRetry,
  type FailedIntentRetryOptions,
  RetryRefusedError,
  retryFailedIntent,
} from "./failed-intent-retry.js";
export {
  attemptIntentId,
  createIntentJournal,
  type IntentJournal,
  type StoredAttempt,
} from "./intent-journal.js";
export { createSuiIntentRunner, type SuiIntentRunner, type SuiIntentSpec } from "./intent-runner.js";
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
