import { z } from "zod";
import { sessionPrincipal } from "../../auth/session-token.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { payoutWalletCodeMail } from "../../mail/messages.js";
import { PayoutWalletCodeSchema } from "../../openapi/resources.js";
import type { EmailCodes } from "../auth/email-codes.js";
import { type CodeMailDeps, mailCodeToMember } from "../auth/merchant-email.js";
import { LIMITS } from "../auth/throttle.js";
import { chainParam, walletAddress } from "./wallet-address.js";
import { WALLET_CODE_PURPOSE, walletCodeBinding } from "./wallet-resource.js";

export const requestWalletCodeOperation = defineOperation({
  method: "post",
  path: "/payout-wallets/{chain}/request-code",
  operationId: "requestPayoutWalletCode",
  summary: "E-mails a code bound to this chain and address.",
  auth: "bearer",
  idempotent: true,
  params: z.object({ chain: chainParam }),
  body: z.strictObject({ address: z.string().min(1) }),
  codes: { chain: "chain_unsupported", address: "address_invalid" },
  responses: { 202: { schema: PayoutWalletCodeSchema, description: "Code sent" } },
});

/**
 * `POST /payout-wallets/:chain/request-code {address}` → 202. E-mails a code that sets this
 * chain's payout wallet to this address and to nothing else; asking again replaces the code.
 */
export function requestWalletCode(
  deps: CodeMailDeps,
  codes: EmailCodes,
): Handler<typeof requestWalletCodeOperation> {
  return async ({ params: { chain }, body }, _req, res) => {
    const session = sessionPrincipal(res);
    const { merchantId } = session;
    const address = walletAddress(chain, body.address);
    const sent = await mailCodeToMember(deps, session, {
      kind: "wallet-code",
      perAccount: LIMITS.walletCodesPerAccount,
      issue: () =>
        codes.issue({ merchantId, purpose: WALLET_CODE_PURPOSE, boundTo: walletCodeBinding(chain, address) }),
      mail: (to, code) => payoutWalletCodeMail(to, code, chain, address),
    });
    return { object: "payout_wallet_code", chain, address, ...sent };
  };
}
