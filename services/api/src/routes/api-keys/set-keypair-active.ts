import { GatewayError } from "@gateway/errors";
import { z } from "zod";
import { createAudit, memberActor } from "../../auth/audit.js";
import { keypairCacheOf } from "../../auth/require-api-key.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { emptyBody } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { ApiKeypairSchema } from "../../openapi/resources.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

const keypairOperation = <const Id extends string>(operationId: Id, action: string) =>
  defineOperation({
    method: "post",
    path: `/api-keys/{id}/${action}`,
    operationId,
    auth: "bearer",
    idempotent: true,
    params: z.object({ id: z.string().meta({ description: "Keypair id." }) }),
    body: emptyBody,
    responses: { 200: ApiKeypairSchema },
    errors: { 404: "No such keypair (or another merchant's)." },
  });

export const deactivateKeypairOperation = keypairOperation("deactivateApiKeypair", "deactivate");
export const activateKeypairOperation = keypairOperation("activateApiKeypair", "activate");

/**
 * `POST /api-keys/:id/deactivate` and `/activate`. This replica empties its keypair cache before
 * answering, so the change holds here at once; the update's trigger notifies every other replica
 * (auth/keypair-cache.ts), which empties its cache when the notification arrives. Another
 * merchant's keypair is a 404, like one that does not exist.
 */
export function setKeypairActive(
  { sql, config }: Pick<ApiDeps, "sql" | "config">,
  active: boolean,
): Handler<typeof activateKeypairOperation> {
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ params }, req, res) => {
    const session = sessionPrincipal(res);
    const row = await sql.begin(async (tx) => {
      const [updated] = await tx<KeypairRow[]>`
        update api_keypairs set active = ${active},
          updated_at = case when active = ${active} then updated_at else now() end
        where id = ${params.id} and merchant_id = ${session.merchantId}
        returning ${tx(KEYPAIR_COLUMNS)}`;
      if (!updated)
        throw new GatewayError("resource_not_found", { param: "id", message: "No such API keypair." });
      const action = active ? "api_key.activated" : "api_key.deactivated";
      await audit.record(tx, { ...memberActor(session), action, details: { keypair: params.id } }, req);
      return updated;
    });
    keypairCacheOf(sql).clear();
    return toKeypairResource(row);
  };
}
