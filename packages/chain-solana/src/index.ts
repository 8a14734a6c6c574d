export { createIntentJournal, type IntentJournal, type IntentRecord } from "./intent-journal.js";
export {
  createSolanaSettlement,
  type SolanaRefundWork,
  type SolanaSettlement,
  SolanaSettlementError,
  type SolanaSettlementOptions,
  type SolanaSweepWork,
  signerIntentId,
} from "./solana-settlement.js";
