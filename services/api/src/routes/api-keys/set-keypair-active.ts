import { GatewayError } from "@gateway/errors";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown } from "../../http/params.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

/**
 * `POST /api-keys/:id/deactivate` and `/activate`. The update's trigger empties every replica's
 * keypair cache (auth/keypair-cache.ts), so the change holds on all of them from the moment this
 * commits. Another merchant's keypair is a 404, like one that does not exist.
 */
export function setKeypairActive({ sql }: Pick<ApiDeps, "sql">, active: boolean): RequestHandler {
  return async (req, res) => {
    const { merchantId } = sessionPrincipal(res);
    rejectUnknown(bodyObject(req.body), []);
    const [row] = await sql<KeypairRow[]>`
      update api_keypairs set active = ${active},
        updated_at = case when active = ${active} then updated_at else now() end
      where id = ${String(req.params.id)} and merchant_id = ${merchantId}
      returning ${sql(KEYPAIR_COLUMNS)}`;
    if (!row) throw new GatewayError("resource_not_found", { param: "id", message: "No such API keypair." });
    res.json(toKeypairResource(row));
  };
}
