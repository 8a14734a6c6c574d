export {
  type ApplyResult,
  applyPaymentMessage,
  applyPaymentMessages,
  applyPaymentMessageToRow,
  type PaymentActorDeps,
  stateAssignments,
  type ToPayment,
} from "./payment-actor.js";
export {
  PAYMENT_EXPORT_COLUMNS,
  type PaymentExportRecord,
  type PaymentExportRow,
  paymentExportBatches,
  toPaymentExportRecord,
} from "./payment-export.js";
export {
  countByStatus,
  type DayVolume,
  failedPayments,
  type Owner,
  searchPayments,
  volumeByDay,
} from "./payment-overview.js";
export { toPaymentResource } from "./payment-resource.js";
export {
  findPayment,
  type InsertPayment,
  insertPayment,
  insertPayments,
  isUuid,
  type ListPaymentsQuery,
  listPayments,
  type PaymentRow,
  stateColumns,
  stateOf,
} from "./payment-row.js";
export {
  type PaymentTransaction,
  type PaymentTransactionKind,
  paymentTransactions,
} from "./payment-transactions.js";
export { republishRefund, type UnsentRefund, unsentRefunds } from "./refund-retry.js";
