// USD valuation of payment amounts and the product's payment limits. Prices are integers
// (micro-USD per whole coin) so every comparison here is exact.

import { type Currency, DECIMALS, MoneyError, pow10 } from "./money.js";

export type PricedCoin = "SOL" | "SUI";

/** Micro-USD (10^-6 USD) per whole coin, e.g. SOL at 150.00 USD is 150_000000n. */
export type Prices = Record<PricedCoin, bigint>;

/** Fixed prices for test mode and development, where no price feed is consulted. */
export const STATIC_TEST_PRICES: Readonly<Prices> = {
  SOL: 150_000000n,
  SUI: 3_500000n,
};

export const MICROS_PER_USD = 1_000_000n;
/** Ceiling for any payment: 1,000,000 USD. */
export const MAX_PAYMENT_MICROS = 1_000_000n * MICROS_PER_USD;
/** Floor for USD, USDC and USDT payments: 0.50 USD. */
export const MIN_STABLE_PAYMENT_MICROS = 500_000n;

export function isPriced(currency: Currency): currency is PricedCoin {
  return currency === "SOL" || currency === "SUI";
}

/** The price of a priced coin, refusing a missing or non-positive one. */
export function priceOf(coin: PricedCoin, prices: Prices): bigint {
  const price = prices[coin];
  if (typeof price !== "bigint" || price <= 0n) {
    throw new MoneyError("price_unavailable", `no usable ${coin} price`);
  }
  return price;
}

/**
 * `amount` × price as an exact fraction: numerator / denominator micro-USD. The limits
 * compare fractions so that a value a fraction of a micro-USD above the ceiling is refused.
 */
function usdFraction(amount: bigint, currency: Currency, prices: Prices): [bigint, bigint] {
  if (isPriced(currency)) return [amount * priceOf(currency, prices), pow10(DECIMALS[currency])];
  // USD, USDC and USDT are all worth 1 USD a whole unit; micro-USD has 6 decimals.
  const decimals = DECIMALS[currency];
  return decimals <= 6 ? [amount * pow10(6 - decimals), 1n] : [amount, pow10(decimals - 6)];
}

/** USD value of `amount` base units of `currency`, in micro-USD, rounded down. */
export function usdMicros(amount: bigint, currency: Currency, prices: Prices): bigint {
  const [numerator, denominator] = usdFraction(amount, currency, prices);
  return numerator / denominator;
}

/**
 * Enforces the payment limits (docs/payment-lifecycle.md, "Money rules") on a parsed amount: positive, at most 1,000,000
 * USD-equivalent, and at least 0.50 USD for stablecoin-priced payments (SOL and SUI
 * payments have no floor beyond one base unit).
 */
export function checkPaymentLimits(amount: bigint, currency: Currency, prices: Prices): void {
  if (amount <= 0n) throw new MoneyError("amount_not_positive", "amount must be greater than zero");
  const [numerator, denominator] = usdFraction(amount, currency, prices);
  if (numerator > MAX_PAYMENT_MICROS * denominator) {
    throw new MoneyError("amount_too_large", "amount must be at most 1,000,000 USD-equivalent");
  }
  if (!isPriced(currency) && numerator < MIN_STABLE_PAYMENT_MICROS * denominator) {
    throw new MoneyError("amount_too_small", `${currency} payments must be at least 0.50`);
  }
}

/**
 * A price table holding one coin's rate (none: a stablecoin payment). The other coin reads as
 * unavailable, so a path that never needs its price can never be valued with a made-up one either.
 */
export function pricesWith(coin: PricedCoin | null, rate: bigint | null): Prices {
  const table: Prices = { SOL: 0n, SUI: 0n };
  if (coin !== null && rate !== null) table[coin] = rate;
  return table;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/**
 * A USD amount (cents) in base units of `coin` at `rate` micro-USD per coin, rounded up to the
 * coin's base unit: the customer never sends less than the USD amount is worth at the rate.
 */
export function quotedAmount(usdCents: bigint, coin: PricedCoin, rate: bigint): bigint {
  if (rate <= 0n) throw new MoneyError("price_unavailable", `no usable ${coin} rate`);
  const micros = usdCents * pow10(6 - DECIMALS.USD);
  return ceilDiv(micros * pow10(DECIMALS[coin]), rate);
}

/** Micro-USD as a USD decimal string, trimmed to at least two decimals ("150.12", "3.501234"). */
export function formatMicroUsd(micros: bigint): string {
  const whole = micros / MICROS_PER_USD;
  let fraction = (micros % MICROS_PER_USD).toString().padStart(6, "0").replace(/0+$/, "");
  if (fraction.length < 2) fraction = fraction.padEnd(2, "0");
  return `${whole}.${fraction}`;
}
