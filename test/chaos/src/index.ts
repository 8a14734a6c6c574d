export { type Cluster, type ClusterOptions, SIGNER_MNEMONIC, startCluster } from "./cluster.js";
export { type ManagedProcess, managedProcess, ROOT } from "./managed-process.js";
