import { newId } from "@gateway/db";
import type { Request } from "express";
import { z } from "zod";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { type Mailer, type MailMessage, sendOrUnavailable } from "../../mail/mailer.js";
import { alreadyRegisteredMail, verificationCodeMail } from "../../mail/messages.js";
import { SignupSchema } from "../../openapi/resources.js";
import type { EmailCodes } from "./email-codes.js";
import { businessNameField, chosenPassword, emailField } from "./fields.js";
import { hashPassword } from "./passwords.js";
import { LIMITS, throttle } from "./throttle.js";

export const VERIFY_EMAIL = "verify_email";

export const signupOperation = defineOperation({
  method: "post",
  path: "/auth/signup",
  operationId: "signup",
  summary:
    "Sign up; e-mails a 6-digit verification code. Same answer whether or not the e-mail is registered.",
  auth: "none",
  body: z
    .strictObject({ email: emailField, password: chosenPassword, business_name: businessNameField })
    .meta({ id: "SignupRequest" }),
  responses: { 201: SignupSchema },
});

/**
 * `POST /auth/signup`. The answer is the same 201 whether or not the address has an account, so
 * sign-up cannot be used to test addresses; what differs is the mail, which only the address's
 * owner reads. A sign-up for an address that is registered but not verified replaces the pending
 * password and name and sends a new code: no one has proven to own that address yet, and the
 * account stays unusable until the mailbox owner enters the code.
 */
export function signup(
  { sql, limiter, mailer }: Pick<ApiDeps, "sql" | "limiter"> & { mailer: Mailer },
  codes: EmailCodes,
  clientIp: (req: Request) => string,
): Handler<typeof signupOperation> {
  return async ({ body: { email, password, business_name: businessName } }, req) => {
    await throttle(limiter, [
      [`signup:ip:${clientIp(req)}`, LIMITS.signupPerIp],
      [`mail:account:${email}`, LIMITS.mailPerAccount],
    ]);
    // Hashed on every path, so the response time does not depend on the address either.
    const passwordHash = await hashPassword(password);

    const pendingMerchant = await sql.begin(async (tx) => {
      const [user] = await tx<{ merchant_id: string; verified: boolean; role: string }[]>`
        select merchant_id, email_verified_at is not null as verified, role from users
        where lower(email) = ${email} for update`;
      if (!user) {
        const merchantId = newId("mer");
        const [created] = await tx<{ id: string }[]>`
          insert into merchants (id, email, business_name) values (${merchantId}, ${email}, ${businessName})
          on conflict do nothing returning id`;
        if (!created) return undefined;
        await tx`insert into users (id, merchant_id, email, password_hash, role)
          values (${`usr_${merchantId.slice(4)}`}, ${merchantId}, ${email}, ${passwordHash}, 'owner')`;
        return merchantId;
      }
      if (user.verified || user.role !== "owner") return undefined;
      await tx`update users set password_hash = ${passwordHash} where lower(email) = ${email}`;
      await tx`update merchants set business_name = ${businessName} where id = ${user.merchant_id}`;
      return user.merchant_id;
    });
    const mail: MailMessage = pendingMerchant
      ? verificationCodeMail(
          email,
          (await codes.issue({ merchantId: pendingMerchant, purpose: VERIFY_EMAIL })).code,
        )
      : alreadyRegisteredMail(email);
    await sendOrUnavailable(mailer, mail);
    return { object: "signup", email, verification: "code_sent" };
  };
}
