export {
  chainVariables,
  declaredNetworks,
  isMainnetToken,
  networkDeclarationIssues,
} from "./declared-networks.js";
export { booleanFlag, commaList, logLevel, port, positiveInt, url, urlList } from "./fields.js";
export { ConfigError, loadConfigOrExit, parseConfig } from "./load-config.js";
export * from "./schemas.js";
