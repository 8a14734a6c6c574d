// Where the API needs a USD value of SOL or SUI: fixed prices for test payments, the live price
// service's verdict for live ones, and a documented 503 when live mode has none.
import type { Mode, PricedCoin } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { type PriceService, priceForMode } from "@gateway/prices";

/** Micro-USD per `coin` for a payment of `mode`, or 503 price_unavailable. */
export function usdRate(prices: PriceService | undefined, mode: Mode, coin: PricedCoin): bigint {
  const verdict = priceForMode(prices, mode, coin);
  if (!verdict.ok) {
    throw new GatewayError("price_unavailable", {
      message: `No reliable live ${coin} price is available right now; retry shortly.`,
      cause: new Error(verdict.reason),
    });
  }
  return verdict.price.micros;
}

/** usdRate, or null: for views that show an estimate when they can. */
export function usdRateOrNull(prices: PriceService | undefined, mode: Mode, coin: PricedCoin): bigint | null {
  const verdict = priceForMode(prices, mode, coin);
  return verdict.ok ? verdict.price.micros : null;
}
