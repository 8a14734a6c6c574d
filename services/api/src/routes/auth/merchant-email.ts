import type { ApiDeps } from "../../deps.js";
import { type MailMessage, sendOrUnavailable } from "../../mail/mailer.js";
import { type Limit, throttle } from "./throttle.js";

/** What mailing a code to the signed-in member needs. */
export type CodeMailDeps = Pick<ApiDeps, "sql" | "limiter" | "mailer">;

/**
 * Issues a fresh code and mails it to the signed-in member, at most `perAccount` times per window
 * for the whole merchant (the bucket `<kind>:account:<merchantId>`). Answers where it went and when
 * it expires.
 */
export async function mailCodeToMember(
  { limiter, mailer }: CodeMailDeps,
  member: { merchantId: string; email: string },
  code: {
    kind: string;
    perAccount: Limit;
    issue: () => Promise<{ code: string; expiresAt: Date }>;
    mail: (to: string, code: string) => MailMessage;
  },
): Promise<{ sent_to: string; expires_at: string }> {
  await throttle(limiter, [[`${code.kind}:account:${member.merchantId}`, code.perAccount]]);
  const issued = await code.issue();
  await sendOrUnavailable(mailer, code.mail(member.email, issued.code));
  return { sent_to: member.email, expires_at: issued.expiresAt.toISOString() };
}
