// The chains, coins, currencies and modes every resource and message is written in. A chain is
// added here and in the chain registry (packages/chains) together: the registry's type check
// fails on a chain without a module, the drift test on any other copy (docs/adding-a-chain.md).

export const CHAINS = ["solana", "sui"] as const;
export type Chain = (typeof CHAINS)[number];

/** What a customer may actually send. */
export const COINS = ["USDC", "USDT", "SOL", "SUI"] as const;
export type Coin = (typeof COINS)[number];

/** What a merchant may price a payment in. */
export const CURRENCIES = ["USD", ...COINS] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Payouts pay stablecoins only: a merchant's balance in SOL or SUI is swept, never paid out. */
export const PAYOUT_COINS = ["USDC", "USDT"] as const satisfies readonly Coin[];
export type PayoutCoin = (typeof PAYOUT_COINS)[number];

/** Set by the key prefix on every object; test and live never mix (docs/test-mode.md). */
export const MODES = ["test", "live"] as const;
export type Mode = (typeof MODES)[number];

/**
 * What became of a signed transaction on its chain: final and succeeded, final and failed, not
 * final yet but still able to be (`pending`), or not on chain and unable ever to be (`never`).
 */
export type TransactionOutcome = "succeeded" | "failed" | "pending" | "never";
