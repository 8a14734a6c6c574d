import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import { z } from "zod";
import { createLoginToken } from "../../accounts/login-tokens.js";
import { loginMethods, secondFactorsOf } from "../../accounts/second-factor.js";
import type { createAudit } from "../../auth/audit.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { LoginAnswerSchema } from "../../openapi/account-resources.js";
import { emailField, triedPassword } from "./fields.js";
import { verifyPassword } from "./passwords.js";
import { LIMITS, throttle } from "./throttle.js";

export const loginOperation = defineOperation({
  method: "post",
  path: "/auth/login",
  operationId: "login",
  summary:
    "Returns a short-lived JWT for the dashboard and /payouts, or, with a second factor on, a login_token for the second step.",
  auth: "none",
  body: z.strictObject({ email: emailField, password: triedPassword }).meta({ id: "LoginRequest" }),
  responses: { 200: LoginAnswerSchema },
  errors: {
    401: "Unknown e-mail or wrong password (the same answer for both).",
    403: "E-mail not verified yet.",
  },
});

interface LoginUser {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  verified: boolean;
}

/**
 * `POST /auth/login {email, password}` → `{token}`, or `{two_factor_required, login_token,
 * methods}` when the member has a second factor. An unknown address and a wrong password are the
 * same 401 after the same argon2 work; "not verified" (403) is said only to whoever already knows
 * the password.
 */
export function login(
  { sql, limiter, sessions }: Pick<ApiDeps, "sql" | "limiter" | "sessions">,
  audit: ReturnType<typeof createAudit>,
  clientIp: (req: Request) => string,
): Handler<typeof loginOperation> {
  return async ({ body: { email, password } }, req) => {
    await throttle(limiter, [
      [`login:ip:${clientIp(req)}`, LIMITS.loginPerIp],
      [`login:account:${email}`, LIMITS.loginPerAccount],
    ]);
    const [user] = await sql<LoginUser[]>`
      select id, merchant_id, email, password_hash, email_verified_at is not null as verified
      from users where lower(email) = ${email}`;
    if (!(await verifyPassword(user?.password_hash, password)) || !user) {
      if (user) await audit.record(sql, loginEntry(user, "login.failed", { reason: "password" }), req);
      throw new GatewayError("credentials_invalid");
    }
    if (!user.verified) throw new GatewayError("email_not_verified");
    const methods = loginMethods(await secondFactorsOf(sql, user.id));
    if (methods.length > 0) {
      return { two_factor_required: true, login_token: await createLoginToken(sql, user.id), methods };
    }
    await audit.record(sql, loginEntry(user, "login.succeeded", { method: "password" }), req);
    return { token: await sessions.issue(user.id, audit.origin(req)) };
  };
}

export function loginEntry(
  user: { id: string; merchant_id: string; email: string },
  action: "login.succeeded" | "login.failed",
  details: Record<string, unknown>,
) {
  return { merchantId: user.merchant_id, actorId: user.id, actor: user.email, action, details } as const;
}
