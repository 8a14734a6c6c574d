import { GatewayError } from "@gateway/errors";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown } from "../../http/params.js";
import { throttle } from "../auth/throttle.js";
import { resolveDestination } from "./destination.js";
import type { PayoutCodes } from "./payout-codes.js";
import { modeParam, payoutCodeMail } from "./payout-params.js";

const CODES_PER_HOUR = { limit: 10, windowSeconds: 3600 };

/**
 * `POST /payouts/request-otp {chain?, destination_address?, mode?}` → 202. Mails a 6-digit code
 * that authorises payouts of this mode, on this chain, to this destination and nothing else. A
 * destination must be known first (explicit, or the chain's linked payout wallet). Asking again
 * replaces the merchant's live code.
 */
export function requestPayoutOtp(
  { sql, limiter, mailer }: Pick<ApiDeps, "sql" | "limiter" | "mailer">,
  codes: PayoutCodes,
): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const body = bodyObject(req.body ?? {});
    rejectUnknown(body, ["chain", "destination_address", "mode"]);
    const mode = modeParam(body.mode);
    const { chain, destination } = await resolveDestination(sql, merchantId, body);
    await throttle(limiter, [[`payout-code:account:${merchantId}`, CODES_PER_HOUR]]);
    const [merchant] = await sql<{ email: string }[]>`select email from merchants where id = ${merchantId}`;
    if (!merchant) throw new GatewayError("token_invalid");
    const { code, expiresAt } = await codes.issue(merchantId, { mode, chain, destination });
    try {
      await mailer.send(payoutCodeMail(merchant.email, code, { chain, destination, mode }));
    } catch (cause) {
      throw new GatewayError("service_unavailable", {
        cause,
        message: "The e-mail could not be sent; retry shortly.",
      });
    }
    res.status(202).json({
      object: "payout_code",
      mode,
      chain,
      destination_address: destination,
      sent_to: merchant.email,
      expires_at: expiresAt.toISOString(),
    });
  };
}
