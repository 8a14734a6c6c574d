import { GatewayError } from "@gateway/errors";
import { secondFactorsOf } from "../../accounts/second-factor.js";
import { routesAllowedTo } from "../../auth/permissions.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { MeSchema } from "../../openapi/account-resources.js";

export const meOperation = defineOperation({
  method: "get",
  path: "/auth/me",
  operationId: "me",
  summary: "Who the dashboard is signed in as: the merchant, the member and what their role may do",
  auth: "bearer",
  responses: { 200: MeSchema },
});

/** `GET /auth/me`: the merchant, the signed-in member, and the routes their role may call. */
export function me({ sql }: Pick<ApiDeps, "sql">): Handler<typeof meOperation> {
  return async (_input, _req, res) => {
    const session = sessionPrincipal(res);
    const [merchant] = await sql<
      { id: string; email: string; business_name: string; created_at: Date; require_2fa: boolean }[]
    >`select id, email, business_name, created_at, require_2fa from merchants where id = ${session.merchantId}`;
    // A valid token for an account that no longer exists is as good as no token.
    if (!merchant) throw new GatewayError("token_invalid");
    const factors = await secondFactorsOf(sql, session.userId);
    return {
      id: merchant.id,
      object: "merchant",
      email: merchant.email,
      business_name: merchant.business_name,
      created_at: merchant.created_at.toISOString(),
      member: {
        id: session.userId,
        email: session.email,
        role: session.role,
        totp: factors.totp,
        passkeys: factors.passkeys,
        second_factor_setup_required: session.secondFactorSetupRequired,
      },
      require_2fa: merchant.require_2fa,
      permissions: routesAllowedTo(session.role),
    };
  };
}
