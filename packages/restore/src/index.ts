export {
  type AfterRestoreOptions,
  type AfterRestoreReport,
  afterRestore,
  parseSignerRecord,
  type SignedIntentView,
  type SignedOnChain,
  type SignerRecordLine,
} from "./after-restore.js";
