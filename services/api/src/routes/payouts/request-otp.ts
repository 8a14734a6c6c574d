import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { payoutCodeMail } from "../../mail/messages.js";
import { PayoutCodeSchema } from "../../openapi/resources.js";
import { type CodeMailDeps, mailCodeToMember } from "../auth/merchant-email.js";
import { LIMITS } from "../auth/throttle.js";
import { chainParam } from "../payout-wallets/wallet-address.js";
import { resolveDestination } from "./destination.js";
import type { PayoutCodes } from "./payout-codes.js";
import { payoutMode } from "./payout-params.js";

export const requestOtpOperation = defineOperation({
  method: "post",
  path: "/payouts/request-otp",
  operationId: "requestPayoutOtp",
  summary: "E-mail a 6-digit code for payouts to one destination (10 minutes, 5 tries, one live code)",
  auth: "bearer",
  idempotent: true,
  body: z
    .strictObject({
      chain: chainParam.nullish(),
      destination_address: z.string().nullish().meta({
        description: "Defaults to the chain's linked payout wallet.",
      }),
      mode: payoutMode,
    })
    .meta({ id: "PayoutOtpRequest" }),
  codes: { chain: "chain_unsupported", destination_address: "address_invalid" },
  responses: { 202: { schema: PayoutCodeSchema, description: "Code sent" } },
});

/**
 * `POST /payouts/request-otp {chain?, destination_address?, mode?}` → 202. Mails a 6-digit code
 * that authorises payouts of this mode, on this chain, to this destination and nothing else. A
 * destination must be known first (explicit, or the chain's linked payout wallet). Asking again
 * replaces the merchant's live code.
 */
export function requestPayoutOtp(
  deps: CodeMailDeps,
  codes: PayoutCodes,
): Handler<typeof requestOtpOperation> {
  return async ({ body }, _req, res) => {
    const session = sessionPrincipal(res);
    const { merchantId } = session;
    const mode = body.mode ?? "live";
    const { chain, destination } = await resolveDestination(deps.sql, merchantId, body);
    const sent = await mailCodeToMember(deps, session, {
      kind: "payout-code",
      perAccount: LIMITS.payoutCodesPerAccount,
      issue: () => codes.issue(merchantId, { mode, chain, destination }),
      mail: (to, code) => payoutCodeMail(to, code, { chain, destination, mode }),
    });
    return { object: "payout_code", mode, chain, destination_address: destination, ...sent };
  };
}
