import { newId } from "@gateway/db";
import { z } from "zod";
import { generateKeypair } from "../../auth/api-keys.js";
import { createAudit, memberActor } from "../../auth/audit.js";
import { SCOPES } from "../../auth/permissions.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { CreatedApiKeypairSchema } from "../../openapi/resources.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

export const createKeypairOperation = defineOperation({
  method: "post",
  path: "/api-keys",
  operationId: "createApiKeypair",
  summary: "Generates a test and a live key, shown only in this answer.",
  auth: "bearer",
  body: z
    .strictObject({
      scopes: z
        .array(z.enum(SCOPES))
        .max(SCOPES.length)
        .optional()
        .meta({ description: "What the keys may do; absent: every scope, including scopes added later." }),
    })
    .meta({ id: "CreateApiKeypairRequest" }),
  responses: { 201: CreatedApiKeypairSchema },
});

/**
 * `POST /api-keys` → 201 with both keys in clear, the only time they are ever shown. Only their
 * sha256 and display prefixes are stored. Idempotency-Key is deliberately not honoured here: a
 * replay would need the keys stored in clear for 24 hours; a retried request makes a second
 * keypair, which the merchant can deactivate.
 */
export function createKeypair({
  sql,
  config,
}: Pick<ApiDeps, "sql" | "config">): Handler<typeof createKeypairOperation> {
  const audit = createAudit(config.TRUSTED_PROXIES);
  return async ({ body }, req, res) => {
    const session = sessionPrincipal(res);
    const keys = generateKeypair();
    const scopes = body.scopes === undefined ? null : [...new Set(body.scopes)];
    const row = await sql.begin(async (tx) => {
      const [created] = await tx<KeypairRow[]>`
        insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix, scopes)
        values (${newId("key")}, ${session.merchantId}, ${keys.testHash}, ${keys.testPrefix}, ${keys.liveHash},
                ${keys.livePrefix}, ${scopes})
        returning ${tx(KEYPAIR_COLUMNS)}`;
      await audit.record(
        tx,
        { ...memberActor(session), action: "api_key.created", details: { keypair: created!.id, scopes } },
        req,
      );
      return created;
    });
    const resource = toKeypairResource(row!);
    return {
      id: resource.id,
      object: resource.object,
      test_key: keys.testKey,
      live_key: keys.liveKey,
      active: resource.active,
      test_key_prefix: resource.test_key_prefix,
      live_key_prefix: resource.live_key_prefix,
      scopes: resource.scopes,
      created_at: resource.created_at,
      updated_at: resource.updated_at,
    };
  };
}
