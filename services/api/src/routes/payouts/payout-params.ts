import { type Chain, type Mode, parseCoin } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { PAYOUT_COINS, type PayoutCoin } from "@gateway/ledger";
import type { RequestHandler } from "express";
import type { MailMessage } from "../../mail/mailer.js";

/** `mode`: live unless the call asks for the test balance. */
export function modeParam(raw: unknown): Mode {
  if (raw === undefined || raw === null) return "live";
  if (raw === "live" || raw === "test") return raw;
  throw new GatewayError("parameter_invalid", { param: "mode", message: "mode must be live or test." });
}

export function coinParam(raw: unknown): PayoutCoin {
  if (raw === undefined || raw === null || raw === "")
    throw new GatewayError("parameter_missing", { param: "coin_symbol" });
  let coin: string;
  try {
    coin = parseCoin(raw);
  } catch (cause) {
    throw new GatewayError("coin_unsupported", { param: "coin_symbol", cause });
  }
  if (!(PAYOUT_COINS as readonly string[]).includes(coin)) {
    throw new GatewayError("coin_unsupported", {
      param: "coin_symbol",
      message: "Payouts are in USDC or USDT.",
    });
  }
  return coin as PayoutCoin;
}

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

export function payoutCodeMail(
  to: string,
  code: string,
  { chain, destination, mode }: { chain: Chain; destination: string; mode: Mode },
): MailMessage {
  return {
    to,
    subject: `Your Gateway payout code: ${code}`,
    text: [
      `Your payout code is ${code}.`,
      "",
      `It confirms a ${mode === "test" ? "test-mode " : ""}payout on ${chain} to:`,
      destination,
      "",
      "It is valid for 10 minutes, for this address only, and once.",
      "If you did not ask for it, do not share it, and change your password.",
    ].join("\n"),
  };
}
