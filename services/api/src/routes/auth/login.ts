import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler } from "express";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown } from "../../http/params.js";
import { emailField, passwordField } from "./fields.js";
import { verifyPassword } from "./passwords.js";
import { LIMITS, throttle } from "./throttle.js";

/**
 * `POST /auth/login {email, password}` → `{token}`. An unknown address and a wrong password are
 * the same 401 after the same argon2 work; "not verified" (403) is said only to whoever already
 * knows the password.
 */
export function login(
  { sql, limiter, sessions }: Pick<ApiDeps, "sql" | "limiter" | "sessions">,
  clientIp: (req: Request) => string,
): RequestHandler {
  return async (req, res) => {
    const body = bodyObject(req.body);
    rejectUnknown(body, ["email", "password"]);
    const email = emailField(body);
    const password = passwordField(body, { choosing: false });
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
    res.json({ token: await sessions.issue(merchant.id) });
  };
}
