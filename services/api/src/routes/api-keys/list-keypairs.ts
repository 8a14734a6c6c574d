import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { ApiKeypairListSchema } from "../../openapi/resources.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

export const listKeypairsOperation = defineOperation({
  method: "get",
  path: "/api-keys",
  operationId: "listApiKeypairs",
  auth: "bearer",
  responses: { 200: ApiKeypairListSchema },
});

/** `GET /api-keys`: the merchant's keypairs, newest first, masked. */
export function listKeypairs({ sql }: Pick<ApiDeps, "sql">): Handler<typeof listKeypairsOperation> {
  return async (_input, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const rows = await sql<KeypairRow[]>`
      select ${sql(KEYPAIR_COLUMNS)} from api_keypairs where merchant_id = ${merchantId}
      order by created_at desc, id desc`;
    return { object: "list", data: rows.map(toKeypairResource), has_more: false };
  };
}
