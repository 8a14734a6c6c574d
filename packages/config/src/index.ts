export {
  CHAIN_CONFIGS,
  type ChainConfig,
  type ChainTokenConfig,
  chainFields,
  chainVariables,
  configuredTokens,
  declaredNetworks,
  NETWORKS,
  type WatcherSolanaConfig,
  type WatcherSuiConfig,
  watcherSolanaConfigSchema,
  watcherSuiConfigSchema,
} from "./chain-configs.js";
export { type ChainVariables, isMainnetToken, networkDeclarationIssues } from "./declared-networks.js";
export { booleanFlag, commaList, logLevel, port, positiveInt, url, urlList } from "./fields.js";
export { ConfigError, loadConfigOrExit, parseConfig } from "./load-config.js";
export * from "./schemas.js";
