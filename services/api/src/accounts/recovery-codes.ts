// Ten single-use recovery codes per user, shown once at TOTP enrolment, stored as sha256 only:
// each carries 50 random bits, beyond any guessing the throttle allows.
import { createHash, randomBytes } from "node:crypto";
import type { TransactionSql } from "@gateway/db";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
/** `xxxxx-xxxxx`, case and dashes ignored when entered. */
export const RECOVERY_CODE_PATTERN = /^[a-z0-9]{5}-?[a-z0-9]{5}$/i;

const normalize = (code: string) => code.replace(/-/g, "").toLowerCase();
const hashOf = (code: string) => createHash("sha256").update(normalize(code), "utf8").digest();

function newCode(): string {
  let out = "";
  for (const byte of randomBytes(10)) out += ALPHABET[byte % ALPHABET.length];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** Replaces the user's codes with ten fresh ones and answers them in clear, once. */
export async function replaceRecoveryCodes(tx: TransactionSql, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await tx`delete from recovery_codes where user_id = ${userId}`;
  for (const code of codes)
    await tx`insert into recovery_codes (user_id, code_hash) values (${userId}, ${hashOf(code)})`;
  return codes;
}

/** Spends an unused code; false if it is unknown or already used. */
export async function spendRecoveryCode(tx: TransactionSql, userId: string, code: string): Promise<boolean> {
  if (!RECOVERY_CODE_PATTERN.test(code)) return false;
  const spent = await tx`
    update recovery_codes set used_at = now()
    where user_id = ${userId} and code_hash = ${hashOf(code)} and used_at is null returning 1`;
  return spent.length > 0;
}
