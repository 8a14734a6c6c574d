// The gateway's fee: 1% of the payment, at least 0.10 USD, never more than the payment.
// Computed in the payment currency's base units so it can be shown beside the amount.

import { type Currency, DECIMALS, pow10 } from "./money.js";
import { isPriced, MICROS_PER_USD, type Prices, priceOf } from "./prices.js";

/** 0.10 USD in micro-USD. */
export const MIN_FEE_MICROS = 100_000n;
/** 1% as basis points over 10,000. */
export const FEE_BASIS_POINTS = 100n;

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/**
 * The 0.10 USD minimum in `currency` base units. For SOL and SUI it is rounded up to the
 * next base unit so that the fee is never worth less than 0.10 USD at the given price.
 */
export function minimumFee(currency: Currency, prices: Prices): bigint {
  if (isPriced(currency)) {
    return ceilDiv(MIN_FEE_MICROS * pow10(DECIMALS[currency]), priceOf(currency, prices));
  }
  return ceilDiv(MIN_FEE_MICROS * pow10(DECIMALS[currency]), MICROS_PER_USD);
}

/**
 * Fee in `currency` base units for a positive `amount`: 1% of it rounded half-up to one
 * base unit, raised to the 0.10 USD minimum, and capped at `amount` so the merchant's net
 * is never negative.
 */
export function computeFee(amount: bigint, currency: Currency, prices: Prices): bigint {
  const percent = (amount * FEE_BASIS_POINTS * 2n + 10_000n) / 20_000n;
  const minimum = minimumFee(currency, prices);
  const fee = percent > minimum ? percent : minimum;
  return fee < amount ? fee : amount;
}
