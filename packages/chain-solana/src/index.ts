export { createIntentJournal, type IntentJournal, type IntentRecord } from "./intent-journal.js";
export {
  attemptIntentId,
  createSolanaIntentRunner,
  nonceOf,
  type SolanaIntentRunner,
  type SolanaIntentSpec,
} from "./intent-runner.js";
export { createNoncePool, type NoncePool } from "./nonce-pool.js";
export {
  createSolanaSettlement,
  feePayerSpend,
  type SolanaPayoutWork,
  type SolanaRefundWork,
  type SolanaSettlement,
  SolanaSettlementError,
  type SolanaSettlementOptions,
  type SolanaSweepWork,
  signerIntentId,
  solanaPayoutIntent,
} from "./solana-settlement.js";
