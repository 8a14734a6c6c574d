export type {
  ChainDoctorModule,
  ChainPackage,
  ChainRestoreModule,
  ChainRetryModule,
  ChainSettlementModule,
  RetryDeps,
  SettlementAdapter,
  SettlementDeps,
} from "./chain-package.js";
export { type Finding, fault, pass, plain, whole, within } from "./finding.js";
export {
  createIntentRetries,
  type FailedIntentRetry,
  type IntentRetries,
  type IntentRetry,
  RetryRefusedError,
  recordAttestedRetry,
} from "./intent-retries.js";
export { keepAliveFetch } from "./keep-alive-fetch.js";
export { refundAttestation } from "./refund-attestation.js";
