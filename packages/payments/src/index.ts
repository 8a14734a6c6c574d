export {
  type ApplyResult,
  applyPaymentMessage,
  applyPaymentMessageToRow,
  type PaymentActorDeps,
  stateAssignments,
} from "./payment-actor.js";
export { type PaymentResource, toPaymentResource } from "./payment-resource.js";
export {
  findPayment,
  type InsertPayment,
  insertPayment,
  insertPayments,
  isUuid,
  type ListPaymentsQuery,
  listPayments,
  type PaymentRow,
  stateOf,
} from "./payment-row.js";
export { republishRefund, type UnsentRefund, unsentRefunds } from "./refund-retry.js";
