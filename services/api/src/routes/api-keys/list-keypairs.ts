import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

/** `GET /api-keys`: the merchant's keypairs, newest first, masked. */
export function listKeypairs({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (_req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const rows = await sql<KeypairRow[]>`
      select ${sql(KEYPAIR_COLUMNS)} from api_keypairs where merchant_id = ${merchantId}
      order by created_at desc, id desc`;
    res.json({ object: "list", data: rows.map(toKeypairResource), has_more: false });
  };
}
