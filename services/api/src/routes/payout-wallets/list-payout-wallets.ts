import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { type PayoutWalletRow, toPayoutWalletResource } from "./wallet-resource.js";

/** `GET /payout-wallets`: at most one per chain. */
export function listPayoutWallets({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (_req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const rows = await sql<PayoutWalletRow[]>`
      select chain, address, created_at, updated_at from payout_wallets
      where merchant_id = ${merchantId} order by chain`;
    res.json({ object: "list", data: rows.map(toPayoutWalletResource), has_more: false });
  };
}
