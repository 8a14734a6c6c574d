// Inviting someone to the team by e-mail, and accepting with the mailed code.
import { newId } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import { z } from "zod";
import { type createAudit, memberActor } from "../../auth/audit.js";
import { ROLES } from "../../auth/permissions.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { sendOrUnavailable } from "../../mail/mailer.js";
import { invitationMail } from "../../mail/messages.js";
import { InvitationSchema } from "../../openapi/account-resources.js";
import { TokenSchema } from "../../openapi/resources.js";
import type { EmailCodes } from "../auth/email-codes.js";
import { chosenPassword, emailField, mailedCode } from "../auth/fields.js";
import { hashPassword } from "../auth/passwords.js";
import { LIMITS, throttle } from "../auth/throttle.js";

/** An invitation's code lives three days; five wrong tries void it like any mailed code. */
export const INVITATION_TTL_SECONDS = 3 * 24 * 3600;
const purposeOf = (email: string) => `invitation:${email}`;

export const inviteOperation = defineOperation({
  method: "post",
  path: "/team/invitations",
  operationId: "inviteMember",
  summary:
    "Invites someone by e-mail with a role; mails them a 6-digit code. Inviting again sends a new code.",
  auth: "bearer",
  body: z.strictObject({ email: emailField, role: z.enum(ROLES) }).meta({ id: "InvitationRequest" }),
  responses: { 201: InvitationSchema },
  errors: {
    403: "Only an owner can invite an owner.",
    409: "The address already has an account, or an invitation from another team.",
  },
});

export const acceptInvitationOperation = defineOperation({
  method: "post",
  path: "/auth/accept-invitation",
  operationId: "acceptInvitation",
  summary: "Joins the team with the mailed code and a new password; answers a session token.",
  auth: "none",
  body: z
    .strictObject({ email: emailField, code: mailedCode, password: chosenPassword })
    .meta({ id: "AcceptInvitationRequest" }),
  responses: { 200: TokenSchema },
  errors: { 409: "The address got an account of its own since the invitation." },
});

type Audit = ReturnType<typeof createAudit>;

export function invite(
  { sql, limiter, mailer }: Pick<ApiDeps, "sql" | "limiter" | "mailer">,
  codes: EmailCodes,
  audit: Audit,
): Handler<typeof inviteOperation> {
  return async ({ body: { email, role } }, req, res) => {
    const session = sessionPrincipal(res);
    if (role === "owner" && session.role !== "owner")
      throw new GatewayError("permission_denied", { message: "Only an owner can invite an owner." });
    await throttle(limiter, [[`invite:merchant:${session.merchantId}`, LIMITS.invitationsPerMerchant]]);
    const { invitation, business } = await sql.begin(async (tx) => {
      if ((await tx`select 1 from users where lower(email) = ${email}`).length > 0)
        throw new GatewayError("member_exists", { param: "email" });
      const [row] = await tx<{ email: string; role: string; created_at: Date }[]>`
        insert into invitations (email, merchant_id, role, invited_by)
        values (${email}, ${session.merchantId}, ${role}, ${session.userId})
        on conflict (email) do update set role = excluded.role, invited_by = excluded.invited_by, created_at = now()
          where invitations.merchant_id = excluded.merchant_id
        returning email, role, created_at`;
      if (!row)
        throw new GatewayError("already_exists", {
          param: "email",
          message: "This address has a pending invitation from another team.",
        });
      const [merchant] = await tx<{ business_name: string }[]>`
        select business_name from merchants where id = ${session.merchantId}`;
      await audit.record(
        tx,
        { ...memberActor(session), action: "member.invited", details: { email, role } },
        req,
      );
      return { invitation: row, business: merchant!.business_name };
    });
    // Issued once the invitation is written: a refused invitation leaves no code behind.
    const issued = await codes.issue({
      merchantId: session.merchantId,
      purpose: purposeOf(email),
      ttlSeconds: INVITATION_TTL_SECONDS,
    });
    await sendOrUnavailable(mailer, invitationMail(email, issued.code, business, role));
    return {
      object: "invitation",
      email: invitation.email,
      role: invitation.role as (typeof ROLES)[number],
      created_at: invitation.created_at.toISOString(),
    };
  };
}

/**
 * `POST /auth/accept-invitation {email, code, password}` → `{token}`. No invitation, a wrong code
 * and a used one all answer 400 `code_invalid`; the code proves the address, so the new member is
 * verified at once.
 */
export function acceptInvitation(
  { sql, limiter, sessions }: Pick<ApiDeps, "sql" | "limiter" | "sessions">,
  codes: EmailCodes,
  audit: Audit,
  clientIp: (req: Request) => string,
): Handler<typeof acceptInvitationOperation> {
  return async ({ body: { email, code, password } }, req) => {
    await throttle(limiter, [
      [`accept:ip:${clientIp(req)}`, LIMITS.acceptPerIp],
      [`verify:account:${email}`, LIMITS.verifyPerAccount],
    ]);
    const [invitation] = await sql<{ merchant_id: string; role: string }[]>`
      select merchant_id, role from invitations where email = ${email}`;
    if (!invitation) throw new GatewayError("code_invalid", { param: "code" });
    const passwordHash = await hashPassword(password);
    const userId = newId("usr");
    await codes.consume({
      merchantId: invitation.merchant_id,
      purpose: purposeOf(email),
      code,
      param: "code",
      onValid: async (tx) => {
        const deleted = await tx`delete from invitations where email = ${email} returning 1`;
        if (deleted.length === 0) throw new GatewayError("code_invalid", { param: "code" });
        // Signed up on their own since the invitation (or at this very moment): nothing changes.
        const joined =
          await tx`insert into users (id, merchant_id, email, password_hash, role, email_verified_at)
          values (${userId}, ${invitation.merchant_id}, ${email}, ${passwordHash}, ${invitation.role}, now())
          on conflict do nothing returning id`;
        if (joined.length === 0) throw new GatewayError("member_exists", { param: "email" });
        await audit.record(
          tx,
          {
            merchantId: invitation.merchant_id,
            actorId: userId,
            actor: email,
            action: "member.joined",
            details: { role: invitation.role },
          },
          req,
        );
      },
    });
    return { token: await sessions.issue(userId, audit.origin(req)) };
  };
}
