export { createIntentStore, type IntentStore, type StoredAttempt } from "./intent-store.js";
export {
  createSuiSettlement,
  type SuiSettlement,
  type SuiSettlementOptions,
} from "./sui-settlement.js";
