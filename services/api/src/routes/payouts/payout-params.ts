import { MoneyError, parseCoin } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { PAYOUT_COINS, type PayoutCoin } from "@gateway/payouts";
import type { RequestHandler } from "express";
import { z } from "zod";
import { modeField, parsedBy } from "../../http/fields.js";

/** `coin_symbol`: a stablecoin, case-insensitive; `coin_unsupported` otherwise. */
export const payoutCoinField = parsedBy(
  z.string(),
  (raw) => {
    const coin = parseCoin(raw);
    if (!(PAYOUT_COINS as readonly string[]).includes(coin))
      throw new MoneyError("coin_unsupported", "Payouts are in USDC or USDT.");
    return coin as PayoutCoin;
  },
  z.enum(PAYOUT_COINS),
).meta({ description: "USDC or USDT." });

/** `mode`: live unless the call asks for the test balance. */
export const payoutMode = modeField.nullish().meta({ description: "live (default) or test." });

/**
 * Payouts take the dashboard session only (docs/payouts.md): a request carrying an API key is
 * refused even with a valid bearer token, so a leaked server key can never move money.
 */
export const refuseApiKey: RequestHandler = (req, _res, next) => {
  if (req.headers["x-api-key"] !== undefined) {
    next(
      new GatewayError("api_key_invalid", {
        message: "Payouts take the dashboard's Authorization bearer token; API keys are not accepted.",
      }),
    );
    return;
  }
  next();
};
