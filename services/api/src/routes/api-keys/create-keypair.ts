import { newId } from "@gateway/db";
import { generateKeypair } from "../../auth/api-keys.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { emptyBody } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { CreatedApiKeypairSchema } from "../../openapi/resources.js";
import { KEYPAIR_COLUMNS, type KeypairRow, toKeypairResource } from "./keypair-resource.js";

export const createKeypairOperation = defineOperation({
  method: "post",
  path: "/api-keys",
  operationId: "createApiKeypair",
  summary: "Generates a test and a live key, shown only in this answer.",
  auth: "bearer",
  body: emptyBody,
  responses: { 201: CreatedApiKeypairSchema },
});

/**
 * `POST /api-keys` → 201 with both keys in clear, the only time they are ever shown. Only their
 * sha256 and display prefixes are stored. Idempotency-Key is deliberately not honoured here: a
 * replay would need the keys stored in clear for 24 hours; a retried request makes a second
 * keypair, which the merchant can deactivate.
 */
export function createKeypair({ sql }: Pick<ApiDeps, "sql">): Handler<typeof createKeypairOperation> {
  return async (_input, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const keys = generateKeypair();
    const [row] = await sql<KeypairRow[]>`
      insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix)
      values (${newId("key")}, ${merchantId}, ${keys.testHash}, ${keys.testPrefix}, ${keys.liveHash}, ${keys.livePrefix})
      returning ${sql(KEYPAIR_COLUMNS)}`;
    const resource = toKeypairResource(row!);
    return {
      id: resource.id,
      object: resource.object,
      test_key: keys.testKey,
      live_key: keys.liveKey,
      active: resource.active,
      test_key_prefix: resource.test_key_prefix,
      live_key_prefix: resource.live_key_prefix,
      created_at: resource.created_at,
      updated_at: resource.updated_at,
    };
  };
}
