// Money as integer base units. Amounts enter as JSON numbers or decimal strings and are
// converted by string manipulation only, so no float rounding can ever change a price.

import { COIN_DECIMALS } from "@gateway/chains";
import { CHAINS, type Chain, COINS, type Coin, CURRENCIES, type Currency } from "@gateway/contracts";

export type { Chain, Coin, Currency, Mode } from "@gateway/contracts";
// The lists are the contracts' (the one place each is defined); re-exported for the domain's users.
export { CHAINS, COINS, CURRENCIES };

/** Base-unit decimals: USD counts cents; the coins use their on-chain decimals (the chain registry's). */
export const DECIMALS: Readonly<Record<Currency, number>> = { USD: 2, ...COIN_DECIMALS };

/**
 * Closed set of money error codes. Each maps to a 400 at the HTTP edge, with the code
 * shown to the merchant as is.
 */
export type MoneyErrorCode =
  /** The currency is not one of CURRENCIES. */
  | "currency_unsupported"
  /** The coin is not one of COINS, or cannot pay the payment's currency. */
  | "coin_unsupported"
  /** The chain is not one of CHAINS, or does not carry the coin. */
  | "chain_unsupported"
  /** Not a plain decimal: exponent, hex, sign, whitespace, NaN, Infinity, wrong type. */
  | "amount_invalid"
  /** More decimal places than the currency's base unit can hold. */
  | "amount_too_precise"
  /** Zero or negative. */
  | "amount_not_positive"
  /** Above the 1,000,000 USD-equivalent ceiling. */
  | "amount_too_large"
  /** Below the 0.50 USD floor for stablecoin-priced payments. */
  | "amount_too_small"
  /** A price needed to value SOL or SUI in USD is missing or not positive. */
  | "price_unavailable";

export class MoneyError extends Error {
  override readonly name = "MoneyError";
  readonly code: MoneyErrorCode;

  constructor(code: MoneyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

function pick<T extends string>(input: unknown, allowed: readonly T[], upper: boolean): T | undefined {
  if (typeof input !== "string") return undefined;
  const wanted = upper ? input.toUpperCase() : input.toLowerCase();
  return allowed.find((candidate) => candidate === wanted);
}

/** Case-insensitive in, canonical upper case out. */
export function parseCurrency(input: unknown): Currency {
  const currency = pick(input, CURRENCIES, true);
  if (currency === undefined) {
    throw new MoneyError("currency_unsupported", `currency must be one of ${CURRENCIES.join(", ")}`);
  }
  return currency;
}

/** Case-insensitive in, canonical upper case out. */
export function parseCoin(input: unknown): Coin {
  const coin = pick(input, COINS, true);
  if (coin === undefined) {
    throw new MoneyError("coin_unsupported", `coin must be one of ${COINS.join(", ")}`);
  }
  return coin;
}

/** Case-insensitive in, canonical lower case out. */
export function parseChain(input: unknown): Chain {
  const chain = pick(input, CHAINS, false);
  if (chain === undefined) {
    throw new MoneyError("chain_unsupported", `chain must be one of ${CHAINS.join(", ")}`);
  }
  return chain;
}

// JSON's number grammar without exponent and without sign: "0", "12", "12.5", "0.05".
// Leading zeros ("007") and bare dots ("5.", ".5") are refused, as JSON refuses them.
const PLAIN_DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * Parses an amount exactly into base units of `currency`.
 *
 * A JSON number is read through its shortest round-trip string (`String(n)`), which is
 * the decimal the sender wrote for every value JSON can carry without loss; numbers that
 * print in exponent form (1e-7, 1e21) are refused rather than guessed at. Trailing zeros
 * beyond the currency's decimals are accepted ("12.500" USD is 1250 cents) because a JSON
 * number 12.500 cannot be told apart from 12.5 either.
 */
export function parseAmount(input: unknown, currency: Currency): bigint {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new MoneyError("amount_invalid", "amount must be a finite number");
    text = String(input);
  } else if (typeof input === "string") {
    text = input;
  } else {
    throw new MoneyError("amount_invalid", "amount must be a number or a decimal string");
  }

  const negative = text.startsWith("-");
  const unsigned = negative ? text.slice(1) : text;
  const match = PLAIN_DECIMAL.exec(unsigned);
  if (match === null) {
    throw new MoneyError("amount_invalid", "amount must be a plain decimal such as 12.50");
  }
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  const decimals = DECIMALS[currency];
  if (fraction.length > decimals) {
    throw new MoneyError("amount_too_precise", `${currency} amounts have at most ${decimals} decimal places`);
  }
  const units = BigInt(whole + fraction.padEnd(decimals, "0"));
  if (negative || units === 0n) {
    throw new MoneyError("amount_not_positive", "amount must be greater than zero");
  }
  return units;
}

/**
 * Decimal string of a base-unit amount: trailing zeros trimmed but never fewer than two
 * decimals, so fiat and coins read alike ("12.50", "1.50", "0.000000001").
 */
export function formatAmount(units: bigint, currency: Currency | Coin): string {
  const decimals = DECIMALS[currency];
  const sign = units < 0n ? "-" : "";
  const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  let fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  if (fraction.length < 2) fraction = fraction.padEnd(2, "0");
  return `${sign}${whole}.${fraction}`;
}

/** 10^exponent as a bigint. */
export function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}
