import { payoutWallets } from "@gateway/payouts";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { PayoutWalletListSchema } from "../../openapi/resources.js";
import { toPayoutWalletResource } from "./wallet-resource.js";

export const listPayoutWalletsOperation = defineOperation({
  method: "get",
  path: "/payout-wallets",
  operationId: "listPayoutWallets",
  auth: "bearer",
  responses: { 200: PayoutWalletListSchema },
});

/** `GET /payout-wallets`: at most one per chain. */
export function listPayoutWallets({ sql }: Pick<ApiDeps, "sql">): Handler<typeof listPayoutWalletsOperation> {
  return async (_input, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const rows = await payoutWallets(sql, merchantId);
    return { object: "list", data: rows.map(toPayoutWalletResource), has_more: false };
  };
}
