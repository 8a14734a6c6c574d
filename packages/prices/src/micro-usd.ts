// Feed prices into micro-USD (bigint) by string manipulation only: a feed's decimal is never
// parsed as a float, so no rounding we did not choose ever reaches a price.

/** Above this a "price" is not a price (1,000,000 USD per coin). */
export const MAX_PLAUSIBLE_MICROS = 1_000_000n * 1_000_000n;

const DECIMAL = /^(0|[1-9][0-9]{0,17})(?:\.([0-9]{1,18}))?$/;
const INTEGER = /^-?(0|[1-9][0-9]{0,30})$/;

/** Rounds a non-negative value given as integer digits × 10^-shift to micro-USD, half up. */
function roundToMicros(digits: bigint, shift: number): bigint {
  if (shift <= 0) return digits * 10n ** BigInt(-shift);
  const divisor = 10n ** BigInt(shift);
  return (digits * 2n + divisor) / (divisor * 2n);
}

/**
 * "150.12" → 150_120000n. Only a plain, unsigned decimal is accepted (no sign, exponent,
 * spaces or hex); beyond six decimals it is rounded half up. Undefined for anything else.
 */
export function decimalToMicros(text: unknown): bigint | undefined {
  if (typeof text !== "string") return undefined;
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? "";
  return roundToMicros(BigInt(`${match[1]}${fraction}`), fraction.length - 6);
}

/**
 * Pyth's integer price and exponent ("15012345678", -8) → micro-USD, rounded half up.
 * Undefined for a negative price, a non-integer, or an exponent outside [-18, 6].
 */
export function pythToMicros(price: unknown, expo: unknown): bigint | undefined {
  if (typeof price !== "string" || !INTEGER.test(price) || price.startsWith("-")) return undefined;
  if (typeof expo !== "number" || !Number.isInteger(expo) || expo < -18 || expo > 6) return undefined;
  return roundToMicros(BigInt(price), -expo - 6);
}

/** A price a source may report: positive and below the plausibility ceiling. */
export function isPlausible(micros: bigint | undefined): micros is bigint {
  return micros !== undefined && micros > 0n && micros <= MAX_PLAUSIBLE_MICROS;
}
