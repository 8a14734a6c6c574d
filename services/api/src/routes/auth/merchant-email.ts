import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { ApiDeps } from "../../deps.js";
import { type MailMessage, sendOrUnavailable } from "../../mail/mailer.js";
import { type Limit, throttle } from "./throttle.js";

/** The signed-in merchant's address; a session whose merchant is gone is an invalid token. */
export async function signedInMerchantEmail(sql: Sql, merchantId: string): Promise<string> {
  const [merchant] = await sql<{ email: string }[]>`select email from merchants where id = ${merchantId}`;
  if (!merchant) throw new GatewayError("token_invalid");
  return merchant.email;
}

/** What mailing a code to the signed-in merchant needs. */
export type CodeMailDeps = Pick<ApiDeps, "sql" | "limiter" | "mailer">;

/**
 * Issues a fresh code and mails it to the signed-in merchant, at most `perAccount` times per
 * window (the bucket `<kind>:account:<merchantId>`). Answers where it went and when it expires.
 */
export async function mailCodeToMerchant(
  { sql, limiter, mailer }: CodeMailDeps,
  merchantId: string,
  code: {
    kind: string;
    perAccount: Limit;
    issue: () => Promise<{ code: string; expiresAt: Date }>;
    mail: (to: string, code: string) => MailMessage;
  },
): Promise<{ sent_to: string; expires_at: string }> {
  await throttle(limiter, [[`${code.kind}:account:${merchantId}`, code.perAccount]]);
  const email = await signedInMerchantEmail(sql, merchantId);
  const issued = await code.issue();
  await sendOrUnavailable(mailer, code.mail(email, issued.code));
  return { sent_to: email, expires_at: issued.expiresAt.toISOString() };
}
