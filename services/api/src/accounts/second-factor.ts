import type { Sql, TransactionSql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { Mailer, MailMessage } from "../mail/mailer.js";
import { spendRecoveryCode } from "./recovery-codes.js";
import { checkTotp, type TotpSealer } from "./totp.js";

export type CodeMethod = "totp" | "recovery_code";

/** A 6-digit code is a TOTP, anything else a recovery code; answers which one matched, if any. */
export async function checkSecondFactorCode(
  tx: TransactionSql,
  sealer: TotpSealer,
  userId: string,
  code: string,
): Promise<CodeMethod | undefined> {
  if (/^\d{6}$/.test(code)) return (await checkTotp(tx, sealer, userId, code)) ? "totp" : undefined;
  return (await spendRecoveryCode(tx, userId, code)) ? "recovery_code" : undefined;
}

export interface SecondFactors {
  totp: boolean;
  passkeys: number;
  /** Unused recovery codes. */
  recoveryCodes: number;
}

export async function secondFactorsOf(db: Sql | TransactionSql, userId: string): Promise<SecondFactors> {
  const [row] = await db<SecondFactors[]>`
    select totp_enabled_at is not null as totp,
      (select count(*)::int from passkeys where user_id = ${userId}) as passkeys,
      (select count(*)::int from recovery_codes where user_id = ${userId} and used_at is null) as "recoveryCodes"
    from users where id = ${userId}`;
  return row ?? { totp: false, passkeys: 0, recoveryCodes: 0 };
}

/** What the second login step offers, in the documented order (docs/security.md); empty when login is one step. */
export function loginMethods({
  totp,
  passkeys,
  recoveryCodes,
}: SecondFactors): ("totp" | "passkey" | "recovery_code")[] {
  const methods: ("totp" | "passkey" | "recovery_code")[] = [];
  if (totp) methods.push("totp");
  if (passkeys > 0) methods.push("passkey");
  if (methods.length > 0 && recoveryCodes > 0) methods.push("recovery_code");
  return methods;
}

/** Recovery codes go with the last second factor: without any, login is one step again. */
export async function dropRecoveryCodesIfNoFactorLeft(tx: TransactionSql, userId: string): Promise<void> {
  const { totp, passkeys } = await secondFactorsOf(tx, userId);
  if (!totp && passkeys === 0) await tx`delete from recovery_codes where user_id = ${userId}`;
}

/** Ends every session of the user but `keep` (the one making the change), at once. */
export async function revokeOtherSessions(
  db: Sql | TransactionSql,
  userId: string,
  keep: string | null,
): Promise<void> {
  await db`update sessions set revoked_at = now()
    where user_id = ${userId} and revoked_at is null and id is distinct from ${keep}`;
}

/** Mails every owner of the merchant; a failed send is logged, never the caller's failure. */
export async function mailOwners(
  { sql, mailer, log }: { sql: Sql; mailer: Mailer; log: Logger },
  merchantId: string,
  message: (to: string) => MailMessage,
): Promise<void> {
  const owners = await sql<{ email: string }[]>`
    select email from users where merchant_id = ${merchantId} and role = 'owner'`;
  for (const { email } of owners)
    mailer
      .send(message(email))
      .catch((err: unknown) => log.warn({ err, merchantId }, "owner notice not sent"));
}
