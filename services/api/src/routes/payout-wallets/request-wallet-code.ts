import { GatewayError } from "@gateway/errors";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown, required } from "../../http/params.js";
import { payoutWalletCodeMail } from "../../mail/messages.js";
import type { EmailCodes } from "../auth/email-codes.js";
import { throttle } from "../auth/throttle.js";
import { chainParam, walletAddress } from "./wallet-address.js";
import { WALLET_CODE_PURPOSE, walletCodeBinding } from "./wallet-resource.js";

const CODES_PER_HOUR = { limit: 5, windowSeconds: 3600 };

/**
 * `POST /payout-wallets/:chain/request-code {address}` → 202. E-mails a code that sets this
 * chain's payout wallet to this address and to nothing else; asking again replaces the code.
 */
export function requestWalletCode(
  { sql, limiter, mailer }: Pick<ApiDeps, "sql" | "limiter" | "mailer">,
  codes: EmailCodes,
): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const chain = chainParam(req.params.chain);
    const body = bodyObject(req.body);
    rejectUnknown(body, ["address"]);
    const address = walletAddress(chain, required<unknown>(body, "address"));
    await throttle(limiter, [[`wallet-code:account:${merchantId}`, CODES_PER_HOUR]]);
    const [merchant] = await sql<{ email: string }[]>`select email from merchants where id = ${merchantId}`;
    if (!merchant) throw new GatewayError("token_invalid");
    const { code, expiresAt } = await codes.issue({
      merchantId,
      purpose: WALLET_CODE_PURPOSE,
      boundTo: walletCodeBinding(chain, address),
    });
    try {
      await mailer.send(payoutWalletCodeMail(merchant.email, code, chain, address));
    } catch (cause) {
      throw new GatewayError("service_unavailable", {
        cause,
        message: "The e-mail could not be sent; retry shortly.",
      });
    }
    res.status(202).json({
      object: "payout_wallet_code",
      chain,
      address,
      sent_to: merchant.email,
      expires_at: expiresAt.toISOString(),
    });
  };
}
