export { PAYOUT_COINS, type PayoutCoin, type PayoutKind, type PayoutStatus } from "@gateway/contracts";
export { MANUAL_PAYOUT_NETWORK_FEE } from "./network-fee.js";
export {
  decide,
  isFinished,
  type NewPayoutState,
  newPayout,
  type PayoutDecision,
  type PayoutEffect,
  type PayoutMessage,
  type PayoutMessageOf,
  type PayoutMessageType,
  type PayoutRejectionCode,
  type PayoutState,
  type PayoutStep,
  payoutStep,
} from "./payout.js";
export {
  type AppliedPayoutMessage,
  applyPayoutMessage,
  createPayout,
  type NewPayout,
  type PayoutSubjects,
  payoutSubjects,
} from "./payout-actor.js";
export {
  PAYOUT_EXPORT_COLUMNS,
  type PayoutExportRecord,
  payoutExportBatches,
  toPayoutExportRecord,
} from "./payout-export.js";
export {
  findPayout,
  type ListPayoutsQuery,
  listPayouts,
  type PayoutResource,
  type PayoutRow,
  payoutChain,
  payoutWorkOf,
  recentFailedPayouts,
  type StoredPayoutApproval,
  stateOf,
  toPayoutResource,
} from "./payout-row.js";
export {
  getPayoutSchedule,
  nextRunAt,
  type PayoutSchedule,
  runDueSchedules,
  type ScheduleOwner,
  setPayoutSchedule,
} from "./payout-schedule.js";
export { linkPayoutWallet, type PayoutWalletRow, payoutWallets } from "./payout-wallets.js";
