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
} from "./ledger.js";
export {
  LEDGER_EXPORT_COLUMNS,
  type LedgerExportRange,
  type LedgerExportRecord,
  type LedgerExportRow,
  ledgerExportBatches,
  toLedgerExportRecord,
} from "./ledger-export.js";
export {
  bookInSuspense,
  completePayout,
  creditPayment,
  owePaymentRefund,
  type PaymentCredit,
  type PayoutMovement,
  paymentCredit,
  payPaymentRefund,
  recordGasSpent,
  refundStep,
  releasePayout,
  reservePayout,
  type SuspenseMovement,
  type VaultRefund,
} from "./movements.js";
export { postTransaction, postTransactions } from "./post-transfers.js";
