export type { ChainAsset, ChainModule, MainnetFacts, PaymentRequest } from "./chain-module.js";
export { CHAIN_LABELS, type ChainLabel } from "./labels.js";
export { isMainnetId, sameNetworkId } from "./network-id.js";
export {
  CHAIN_COINS,
  CHAIN_MODULES,
  CHAINS,
  type Chain,
  COIN_DECIMALS,
  chainAsset,
  chainModule,
  chainsOfAddress,
  isChain,
  nativeCoin,
  perChain,
} from "./registry.js";
export { solanaPayUri } from "./solana.js";
