export { createIntentStore, type IntentStore, type StoredAttempt } from "./intent-store.js";
export {
  createSuiSettlement,
  type SuiPayoutWork,
  type SuiRefundWork,
  type SuiSettlement,
  type SuiSettlementOptions,
  type SuiSweepWork,
} from "./sui-settlement.js";
