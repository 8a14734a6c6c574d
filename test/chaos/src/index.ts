export { type Cluster, type ClusterOptions, SIGNER_MNEMONIC, startCluster } from "./cluster.js";
export {
  checkLive,
  driveLivePayment,
  type LiveContext,
  type LivePaymentRecord,
  liveSettled,
} from "./live-stream.js";
export { type ManagedProcess, managedProcess, ROOT } from "./managed-process.js";
