export {
  type AfterRestoreOptions,
  type AfterRestoreReport,
  afterRestore,
  parseSignerRecord,
  type SignedIntentView,
  type SignerRecordLine,
} from "./after-restore.js";
export { checkLedger, type LedgerCheck, type MerchantBalance, merchantBalances } from "./balances.js";
export {
  type AccountKind,
  type AccountRef,
  accountId,
  type Book,
  InsufficientBalanceError,
  LedgerError,
  type LedgerTransactionInput,
  type LedgerTransactionKind,
  lockedBalance,
  type MerchantAccountKind,
  type PlatformAccountKind,
  type Posting,
  postTransaction,
} from "./ledger.js";
export {
  completePayout,
  creditPayment,
  owePaymentRefund,
  type PaymentCredit,
  type PayoutMovement,
  payPaymentRefund,
  recordGasSpent,
  releasePayout,
  reservePayout,
  type VaultRefund,
} from "./movements.js";
export {
  getPayoutSchedule,
  nextRunAt,
  type PayoutSchedule,
  runDueSchedules,
  setPayoutSchedule,
} from "./payout-schedule.js";
export {
  advancePayout,
  createPayout,
  MANUAL_PAYOUT_NETWORK_FEE,
  type NewPayout,
  PAYOUT_COINS,
  type PayoutCoin,
  type PayoutKind,
  type PayoutResource,
  type PayoutRow,
  type PayoutStatus,
  type PayoutSubjects,
  type PayoutTransition,
  payoutSubjects,
  toPayoutResource,
} from "./payouts.js";
