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

    const [created] = await sql<{ id: string }[]>`
      insert into merchants (id, email, business_name, password_hash)
      values (${newId("mer")}, ${email}, ${businessName}, ${passwordHash})
      on conflict do nothing returning id`;
    let mail: MailMessage;
    if (created) {
      mail = verificationCodeMail(
        email,
        (await codes.issue({ merchantId: created.id, purpose: VERIFY_EMAIL })).code,
      );
    } else {
      const [pending] = await sql<{ id: string }[]>`
        update merchants set password_hash = ${passwordHash}, business_name = ${businessName}
        where lower(email) = ${email} and email_verified_at is null returning id`;
      mail = pending
        ? verificationCodeMail(
            email,
            (await codes.issue({ merchantId: pending.id, purpose: VERIFY_EMAIL })).code,
          )
        : alreadyRegisteredMail(email);
    }
    await sendOrUnavailable(mailer, mail);
    return { object: "signup", email, verification: "code_sent" };
  };
}
