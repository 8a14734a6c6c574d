// Which coin on which chain can settle a payment priced in a given currency, and the exact
// conversion of the priced amount into that coin's base units.

import { CHAIN_COINS } from "@gateway/chains";
import { type Chain, type Coin, type Currency, DECIMALS, MoneyError, pow10 } from "./money.js";
import { isPriced } from "./prices.js";

/** Coins each chain carries, in the order the checkout offers them: the chain registry's assets. */
export { CHAIN_COINS };

/**
 * Coins that pay each currency. Stablecoins stand in 1:1 for USD and for each other; a USD
 * payment may also be paid in the chain's own coin at a quoted rate (`needsQuote`).
 */
export const PAYMENT_COINS: Readonly<Record<Currency, readonly Coin[]>> = {
  USD: ["USDC", "USDT", "SOL", "SUI"],
  USDC: ["USDC", "USDT"],
  USDT: ["USDC", "USDT"],
  SOL: ["SOL"],
  SUI: ["SUI"],
};

export interface PaymentOption {
  chain: Chain;
  coin: Coin;
}

/** Every (chain, coin) a customer may pay `currency` with; the first is the default. */
export function coinsForPayment(currency: Currency): PaymentOption[] {
  const options: PaymentOption[] = [];
  for (const chain of Object.keys(CHAIN_COINS) as Chain[]) {
    for (const coin of CHAIN_COINS[chain]) {
      if (PAYMENT_COINS[currency].includes(coin)) options.push({ chain, coin });
    }
  }
  return options;
}

export function chainCarries(chain: Chain, coin: Coin): boolean {
  return CHAIN_COINS[chain].includes(coin);
}

export function canPay(currency: Currency, chain: Chain, coin: Coin): boolean {
  return PAYMENT_COINS[currency].includes(coin) && chainCarries(chain, coin);
}

/**
 * A USD price paid in SOL or SUI: the coin amount depends on a rate, locked in a quote for a
 * while, rather than on a fixed 1:1 conversion.
 */
export function needsQuote(currency: Currency, coin: Coin): coin is "SOL" | "SUI" {
  return currency === "USD" && isPriced(coin);
}

/**
 * Converts an amount in `currency` base units into `coin` base units. Every accepted pair
 * without a quote has at least as many coin decimals as currency decimals, so this is an
 * exact multiplication (USD cents → USDC micro-units is × 10^4). Quoted pairs go through
 * `quotedAmount` instead.
 */
export function toCoinUnits(amount: bigint, currency: Currency, coin: Coin): bigint {
  if (!PAYMENT_COINS[currency].includes(coin) || needsQuote(currency, coin)) {
    throw new MoneyError("coin_unsupported", `${coin} cannot pay a ${currency} payment at a fixed rate`);
  }
  return amount * pow10(DECIMALS[coin] - DECIMALS[currency]);
}
