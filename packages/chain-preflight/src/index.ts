export {
  type ChainGuard,
  type ChainGuardOptions,
  startChainGuard,
  startChainGuardOrExit,
} from "./chain-guard.js";
// What each chain's package builds its probe with (packages/chain-<chain>/src/preflight.ts).
export {
  type ChainProbe,
  type CheckOf,
  chainProbe,
  type PreflightCheck,
  PreflightError,
  type ProbeBasics,
  probeBasics,
  reason,
} from "./check.js";
