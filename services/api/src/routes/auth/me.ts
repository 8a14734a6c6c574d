import { GatewayError } from "@gateway/errors";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { MerchantSchema } from "../../openapi/resources.js";

export const meOperation = defineOperation({
  method: "get",
  path: "/auth/me",
  operationId: "me",
  summary: "Who the dashboard is signed in as",
  auth: "bearer",
  responses: { 200: MerchantSchema },
});

/** `GET /auth/me`: who the dashboard is signed in as. */
export function me({ sql }: Pick<ApiDeps, "sql">): Handler<typeof meOperation> {
  return async (_input, _req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const [merchant] = await sql<{ id: string; email: string; business_name: string; created_at: Date }[]>`
      select id, email, business_name, created_at from merchants where id = ${merchantId}`;
    // A valid token for an account that no longer exists is as good as no token.
    if (!merchant) throw new GatewayError("token_invalid");
    return {
      id: merchant.id,
      object: "merchant",
      email: merchant.email,
      business_name: merchant.business_name,
      created_at: merchant.created_at.toISOString(),
    };
  };
}
