export {
  type ChainGuard,
  type ChainGuardOptions,
  startChainGuard,
  startChainGuardOrExit,
} from "./chain-guard.js";
export { type ChainProbe, type PreflightCheck, PreflightError } from "./check.js";
export {
  type SolanaPreflightConfig,
  type SuiPreflightConfig,
  solanaProbeFromConfig,
  suiProbeFromConfig,
} from "./from-config.js";
export { createSolanaProbe, type SolanaProbeOptions } from "./solana-probe.js";
export { createSuiProbe, type SuiProbeOptions } from "./sui-probe.js";
