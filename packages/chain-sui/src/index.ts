export { createIntentStore, type IntentStore, type StoredAttempt } from "./intent-store.js";
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
