import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { EmailVerificationSchema } from "../../openapi/resources.js";
import type { EmailCodes } from "./email-codes.js";
import { emailField, mailedCode } from "./fields.js";
import { VERIFY_EMAIL } from "./signup.js";
import { LIMITS, throttle } from "./throttle.js";

export const verifyEmailOperation = defineOperation({
  method: "post",
  path: "/auth/verify-email",
  operationId: "verifyEmail",
  summary: "Proves the e-mail address with the code sign-up sent.",
  auth: "none",
  body: z.strictObject({ email: emailField, code: mailedCode }).meta({ id: "VerifyEmailRequest" }),
  responses: { 200: EmailVerificationSchema },
});

/**
 * `POST /auth/verify-email {email, code}`. An unknown address, an already verified one and a
 * wrong code all answer the same 400 `code_invalid`.
 */
export function verifyEmail(
  { sql, limiter }: Pick<ApiDeps, "sql" | "limiter">,
  codes: EmailCodes,
  clientIp: (req: Request) => string,
): Handler<typeof verifyEmailOperation> {
  return async ({ body: { email, code } }, req) => {
    await throttle(limiter, [
      [`verify:ip:${clientIp(req)}`, LIMITS.verifyPerIp],
      [`verify:account:${email}`, LIMITS.verifyPerAccount],
    ]);
    const [user] = await sql<{ id: string; merchant_id: string }[]>`
      select id, merchant_id from users
      where lower(email) = ${email} and email_verified_at is null and role = 'owner'`;
    if (!user) throw new GatewayError("code_invalid", { param: "code" });
    await codes.consume({
      merchantId: user.merchant_id,
      purpose: VERIFY_EMAIL,
      code,
      param: "code",
      onValid: async (tx) => {
        await tx`update users set email_verified_at = now() where id = ${user.id}`;
        await tx`update merchants set email_verified_at = now() where id = ${user.merchant_id}`;
      },
    });
    return { object: "email_verification", email, verified: true };
  };
}
