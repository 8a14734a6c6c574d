import { type Mode, type PricedCoin, STATIC_TEST_PRICES } from "@gateway/domain";
import type { PriceVerdict } from "./aggregate.js";
import type { PriceService } from "./price-service.js";

/**
 * The price a payment of `mode` is valued at: fixed prices in test mode (merchants test
 * without a market), the live verdict in live mode, which never falls back to them.
 */
export function priceForMode(prices: PriceService | undefined, mode: Mode, coin: PricedCoin): PriceVerdict {
  if (mode === "test") {
    const micros = STATIC_TEST_PRICES[coin];
    return { ok: true, price: { coin, micros, at: Date.now(), spreadBps: 0n, sources: [] } };
  }
  if (!prices) return { ok: false, reason: "no price sources configured" };
  return prices.price(coin);
}

/** priceForMode as micro-USD, or null when live mode has no price. */
export function usdRateForMode(
  prices: PriceService | undefined,
  mode: Mode,
  coin: PricedCoin,
): bigint | null {
  const verdict = priceForMode(prices, mode, coin);
  return verdict.ok ? verdict.price.micros : null;
}
