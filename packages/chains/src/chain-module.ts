// What the rest of the system needs to know about one chain, in one place. Only pure facts and
// functions live here, so any package or service may import the registry; the parts that talk to
// the chain (its watcher, settlement's adapter) live in the chain's package, which the module
// names, and the maps keyed by `Chain` that use them are checked for exhaustiveness at compile time.
import type { Chain, Coin } from "@gateway/contracts";

export interface ChainAsset {
  coin: Coin;
  /** Base-unit decimals on this chain (lamports, MIST, micro-USDC). */
  decimals: number;
  /** The chain's own coin (pays gas), as opposed to a token. */
  native: boolean;
}

/** A transfer request a customer's wallet can open, when the chain has a standard for one. */
/** USDC and USDT: 6 decimals on every chain the gateway carries. */
export const STABLECOIN_ASSETS: readonly ChainAsset[] = [
  { coin: "USDC", decimals: 6, native: false },
  { coin: "USDT", decimals: 6, native: false },
];

export interface PaymentRequest {
  /** The deposit address, in the form `parseAddress` returns. */
  address: string;
  coin: Coin;
  /** A decimal string in whole coins ("12.5"), as shown to the customer. */
  amount: string;
  /** The token's on-chain id (mint, coin type) when `coin` is not the native coin. */
  token: string | undefined;
  /** Who is paid (the merchant's name). */
  label: string;
  message: string | null;
}

/**
 * What identifies the chain's mainnet, so a service can tell that its endpoint and its token
 * ids are mainnet's before money moves (docs/going-live.md#the-chain-preflight).
 */
export interface MainnetFacts {
  /** The network's identity as the endpoint reports it: the genesis hash, the genesis checkpoint digest. */
  networkId: string;
  /** The token ids (mint, coin type) a stablecoin may have on mainnet; the first is the default. */
  tokens: { readonly USDC: readonly string[]; readonly USDT: readonly string[] };
}

export interface ChainModule<C extends Chain = Chain> {
  id: C;
  /** As customers and merchants read it: its label's (labels.ts). */
  name: string;
  /** Coins carried, in the order the checkout offers them. */
  assets: readonly ChainAsset[];
  /**
   * The canonical form of an address, or undefined when `raw` is not an address of this chain.
   * Canonical means one spelling per address, so equal addresses compare equal as strings.
   */
  parseAddress(raw: string): string | undefined;
  /** What an address looks like, for error messages: "A <name> address is …". */
  addressShape: string;
  /** A wallet-openable payment URI, or null when the chain has no such standard. */
  paymentUri(request: PaymentRequest): string | null;
  /**
   * The package that talks to the chain: its watcher (the module the watcher service runs under
   * `WATCHER_CHAIN=<chain>`) and the settlement adapter that sweeps, refunds and pays out on it.
   */
  chainPackage: `@gateway/chain-${C}`;
  mainnet: MainnetFacts;
  /**
   * Network gas a payout requested by hand is charged, in base units of the payout coin (USDC and
   * USDT have 6 decimals): fixed per chain, so the merchant knows it before asking. The scheduled
   * payout of the day is free.
   */
  manualPayoutNetworkFee: bigint;
}
