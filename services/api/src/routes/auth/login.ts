import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { TokenSchema } from "../../openapi/resources.js";
import { emailField, triedPassword } from "./fields.js";
import { verifyPassword } from "./passwords.js";
import { LIMITS, throttle } from "./throttle.js";

export const loginOperation = defineOperation({
  method: "post",
  path: "/auth/login",
  operationId: "login",
  summary: "Returns a short-lived JWT for the dashboard and /payouts.",
  auth: "none",
  body: z.strictObject({ email: emailField, password: triedPassword }).meta({ id: "LoginRequest" }),
  responses: { 200: TokenSchema },
  errors: {
    401: "Unknown e-mail or wrong password (the same answer for both).",
    403: "E-mail not verified yet.",
  },
});

/**
 * `POST /auth/login {email, password}` → `{token}`. An unknown address and a wrong password are
 * the same 401 after the same argon2 work; "not verified" (403) is said only to whoever already
 * knows the password.
 */
export function login(
  { sql, limiter, sessions }: Pick<ApiDeps, "sql" | "limiter" | "sessions">,
  clientIp: (req: Request) => string,
): Handler<typeof loginOperation> {
  return async ({ body: { email, password } }, req) => {
    await throttle(limiter, [
      [`login:ip:${clientIp(req)}`, LIMITS.loginPerIp],
      [`login:account:${email}`, LIMITS.loginPerAccount],
    ]);
    const [merchant] = await sql<{ id: string; password_hash: string; verified: boolean }[]>`
      select id, password_hash, email_verified_at is not null as verified
      from merchants where lower(email) = ${email}`;
    if (!(await verifyPassword(merchant?.password_hash, password)) || !merchant) {
      throw new GatewayError("credentials_invalid");
    }
    if (!merchant.verified) throw new GatewayError("email_not_verified");
    return { token: await sessions.issue(merchant.id) };
  };
}
