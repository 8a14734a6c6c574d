import { GatewayError } from "@gateway/errors";
import type { RequestHandler } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";

/** `GET /auth/me`: who the dashboard is signed in as. */
export function me({ sql }: Pick<ApiDeps, "sql">): RequestHandler {
  return async (_req, res) => {
    const { merchantId } = sessionPrincipal(res);
    const [merchant] = await sql<{ id: string; email: string; business_name: string; created_at: Date }[]>`
      select id, email, business_name, created_at from merchants where id = ${merchantId}`;
    // A valid token for an account that no longer exists is as good as no token.
    if (!merchant) throw new GatewayError("token_invalid");
    res.json({
      id: merchant.id,
      object: "merchant",
      email: merchant.email,
      business_name: merchant.business_name,
      created_at: merchant.created_at.toISOString(),
    });
  };
}
