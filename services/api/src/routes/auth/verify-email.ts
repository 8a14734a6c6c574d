import { GatewayError } from "@gateway/errors";
import type { Request, RequestHandler } from "express";
import type { ApiDeps } from "../../deps.js";
import { bodyObject } from "../../http/json-body.js";
import { rejectUnknown, required } from "../../http/params.js";
import type { EmailCodes } from "./email-codes.js";
import { emailField } from "./fields.js";
import { VERIFY_EMAIL } from "./signup.js";
import { LIMITS, throttle } from "./throttle.js";

/**
 * `POST /auth/verify-email {email, code}`. An unknown address, an already verified one and a
 * wrong code all answer the same 400 `code_invalid`.
 */
export function verifyEmail(
  { sql, limiter }: Pick<ApiDeps, "sql" | "limiter">,
  codes: EmailCodes,
  clientIp: (req: Request) => string,
): RequestHandler {
  return async (req, res) => {
    const body = bodyObject(req.body);
    rejectUnknown(body, ["email", "code"]);
    const email = emailField(body);
    const code = required<unknown>(body, "code");
    await throttle(limiter, [
      [`verify:ip:${clientIp(req)}`, LIMITS.verifyPerIp],
      [`verify:account:${email}`, LIMITS.verifyPerAccount],
    ]);
    const [merchant] = await sql<{ id: string }[]>`
      select id from merchants where lower(email) = ${email} and email_verified_at is null`;
    if (!merchant) throw new GatewayError("code_invalid", { param: "code" });
    await codes.consume({
      merchantId: merchant.id,
      purpose: VERIFY_EMAIL,
      code,
      param: "code",
      onValid: (tx) => tx`update merchants set email_verified_at = now() where id = ${merchant.id}`,
    });
    res.json({ object: "email_verification", email, verified: true });
  };
}
