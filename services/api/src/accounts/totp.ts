// Authenticator-app codes (RFC 6238: SHA-1, 6 digits, 30 s) through otplib. The secret is sealed
// at rest (it must be read back to check codes); the last accepted time step is kept per user, so
// a code is accepted once and an older one never.
import { hkdfSync } from "node:crypto";
import type { TransactionSql } from "@gateway/db";
import { openSecret, parseSecretKey, sealSecret } from "@gateway/webhook-endpoints";
import { generateSecret, generateURI, verify } from "otplib";

export const TOTP_PERIOD_SECONDS = 30;
/** One step either side of the server's clock (RFC 6238 §5.2). */
const SKEW_SECONDS = TOTP_PERIOD_SECONDS;
const ISSUER = "Gateway";
const CODE_PATTERN = /^\d{6}$/;

export interface TotpSealer {
  seal(userId: string, secret: string): Buffer;
  open(userId: string, sealed: Buffer): string;
}

/** A key of its own for TOTP secrets, derived from WEBHOOK_SECRET_KEY. */
export function createTotpSealer(webhookSecretKey: string): TotpSealer {
  const key = Buffer.from(
    hkdfSync("sha256", parseSecretKey(webhookSecretKey), Buffer.alloc(0), "gateway totp secrets v1", 32),
  );
  return {
    seal: (userId, secret) => sealSecret(key, userId, secret),
    open: (userId, sealed) => openSecret(key, userId, sealed),
  };
}

export function newTotpSecret(email: string): { secret: string; otpauthUrl: string } {
  const secret = generateSecret();
  return { secret, otpauthUrl: generateURI({ issuer: ISSUER, label: email, secret }) };
}

interface TotpRow {
  totp_secret_sealed: Buffer | null;
  totp_enabled_at: Date | null;
  totp_last_step: string;
}

/**
 * Checks a code against the user's secret (enabled, or pending when `pending` is set), locking
 * the user's row in `tx`; a valid code moves `totp_last_step` on, so it cannot be used again.
 */
export async function checkTotp(
  tx: TransactionSql,
  sealer: TotpSealer,
  userId: string,
  code: string,
  { pending = false }: { pending?: boolean } = {},
): Promise<boolean> {
  if (!CODE_PATTERN.test(code)) return false;
  const [row] = await tx<TotpRow[]>`
    select totp_secret_sealed, totp_enabled_at, totp_last_step::text from users
    where id = ${userId} for update`;
  if (!row?.totp_secret_sealed) return false;
  if ((row.totp_enabled_at !== null) === pending) return false;
  const result = await verify({
    secret: sealer.open(userId, row.totp_secret_sealed),
    token: code,
    epochTolerance: SKEW_SECONDS,
    afterTimeStep: Number(row.totp_last_step),
  });
  if (!result.valid || !("timeStep" in result)) return false;
  await tx`update users set totp_last_step = ${result.timeStep} where id = ${userId}`;
  return true;
}
