import { newId, type Sql } from "@gateway/db";
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

/** The address became a member's in the same instant: the sign-up is undone and answered as for a taken address. */
class AddressTaken extends Error {}

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

    const pendingMerchant = await pendingOwner(sql, { email, businessName, passwordHash });
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

/**
 * The merchant whose owner's sign-up this is, with its password set: a new merchant and its owner,
 * or a pending (unverified) owner's, updated. Undefined when the address is taken.
 */
function pendingOwner(
  sql: Sql,
  { email, businessName, passwordHash }: { email: string; businessName: string; passwordHash: string },
): Promise<string | undefined> {
  return sql
    .begin(async (tx) => {
      const [user] = await tx<{ merchant_id: string; verified: boolean; role: string }[]>`
      select merchant_id, email_verified_at is not null as verified, role from users
      where lower(email) = ${email} for update`;
      if (!user) {
        const merchantId = newId("mer");
        const [created] = await tx<{ id: string }[]>`
        insert into merchants (id, email, business_name) values (${merchantId}, ${email}, ${businessName})
        on conflict do nothing returning id`;
        if (!created) return undefined;
        // An invitation accepted at this very moment took the address: the merchant goes too.
        const owner = await tx`insert into users (id, merchant_id, email, password_hash, role)
        values (${`usr_${merchantId.slice(4)}`}, ${merchantId}, ${email}, ${passwordHash}, 'owner')
        on conflict do nothing returning id`;
        if (owner.length === 0) throw new AddressTaken();
        return merchantId;
      }
      if (user.verified || user.role !== "owner") return undefined;
      await tx`update users set password_hash = ${passwordHash} where lower(email) = ${email}`;
      await tx`update merchants set business_name = ${businessName} where id = ${user.merchant_id}`;
      return user.merchant_id;
    })
    .catch((err: unknown) => {
      if (err instanceof AddressTaken) return undefined;
      throw err;
    });
}
