import { linkPayoutWallet } from "@gateway/payouts";
import { z } from "zod";
import { mailOwners } from "../../accounts/second-factor.js";
import { createAudit, memberActor } from "../../auth/audit.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { payoutWalletChangedMail } from "../../mail/messages.js";
import { SetPayoutWalletAnswerSchema } from "../../openapi/resources.js";
import type { EmailCodes } from "../auth/email-codes.js";
import { mailedCode } from "../auth/fields.js";
import { LIMITS, throttle } from "../auth/throttle.js";
import { chainParam, walletAddress } from "./wallet-address.js";
import { toPayoutWalletResource, WALLET_CODE_PURPOSE, walletCodeBinding } from "./wallet-resource.js";

export const setPayoutWalletOperation = defineOperation({
  method: "put",
  path: "/payout-wallets/{chain}",
  operationId: "setPayoutWallet",
  summary: "Sets or replaces the chain's payout wallet with the code mailed for it.",
  auth: "bearer",
  params: z.object({ chain: chainParam }),
  body: z.strictObject({ address: z.string().min(1), otp: mailedCode }),
  codes: { chain: "chain_unsupported", address: "address_invalid" },
  responses: { 200: SetPayoutWalletAnswerSchema },
});

/**
 * `PUT /payout-wallets/:chain {address, otp}`: sets or replaces the chain's payout wallet. The
 * code must be the one mailed for this very chain and address; the wallet row changes in the
 * transaction that spends the code, and in it the signer is asked to allow-list the address as
 * the merchant's linked wallet (live and test), so a failure there changes nothing. Every owner
 * is told by mail afterwards, with when live payouts may start going there and how to cancel.
 */
export function setPayoutWallet(
  {
    limiter,
    mailer,
    log,
    payoutDestinations,
    sql,
    config,
  }: Pick<ApiDeps, "limiter" | "mailer" | "log" | "payoutDestinations" | "sql" | "config">,
  codes: EmailCodes,
): Handler<typeof setPayoutWalletOperation> {
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ params: { chain }, body: { otp, ...body } }, req, res) => {
    const session = sessionPrincipal(res);
    const { merchantId } = session;
    const address = walletAddress(chain, body.address);
    await throttle(limiter, [[`wallet-otp:account:${merchantId}`, LIMITS.codeTriesPerAccount]]);
    const row = await codes.consume({
      merchantId,
      purpose: WALLET_CODE_PURPOSE,
      boundTo: walletCodeBinding(chain, address),
      code: otp,
      param: "otp",
      onValid: async (tx) => {
        const wallet = await linkPayoutWallet(tx, { merchantId, chain, address });
        await audit.record(
          tx,
          { ...memberActor(session), action: "payout_wallet.changed", details: { chain, address } },
          req,
        );
        // Scheduled payouts carry no approval: the signer pays only this linked, allow-listed wallet.
        let effectiveAt: Date | undefined;
        for (const mode of ["live", "test"] as const) {
          const entry = await payoutDestinations?.request({ merchantId, chain, mode, address, linked: true });
          if (mode === "live") effectiveAt = entry?.effectiveAt;
        }
        return { ...wallet, effectiveAt };
      },
    });
    await mailOwners({ sql, mailer, log }, merchantId, (to) =>
      payoutWalletChangedMail(to, chain, address, row.effectiveAt),
    );
    return {
      ...toPayoutWalletResource(row),
      // When live payouts may start going to this address (the signer's delay; null without one).
      effective_at: row.effectiveAt?.toISOString() ?? null,
    };
  };
}
