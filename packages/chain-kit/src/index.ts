export type {
  ChainDoctorModule,
  ChainPackage,
  ChainRestoreModule,
  ChainSettlementModule,
  SettlementAdapter,
  SettlementDeps,
} from "./chain-package.js";
export { type Finding, fault, pass, plain, whole, within } from "./finding.js";
export { keepAliveFetch } from "./keep-alive-fetch.js";
