// The first step of a two-step login (migration 1700, `login_tokens`): a random token that the
// second step spends once. Only its sha256 is stored.
import { createHash, randomBytes } from "node:crypto";
import type { Sql, TransactionSql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";

/** Long enough to fetch a code from an app or touch a security key. */
export const LOGIN_TOKEN_TTL_SECONDS = 300;

const hashOf = (token: string) => createHash("sha256").update(token, "utf8").digest();

export async function createLoginToken(sql: Sql, userId: string): Promise<string> {
  const token = `lt_${randomBytes(32).toString("base64url")}`;
  await sql`delete from login_tokens where user_id = ${userId} and expires_at < now()`;
  await sql`
    insert into login_tokens (token_hash, user_id, expires_at)
    values (${hashOf(token)}, ${userId}, now() + make_interval(secs => ${LOGIN_TOKEN_TTL_SECONDS}))`;
  return token;
}

export interface LoginTokenRow {
  user_id: string;
  webauthn_challenge: string | null;
}

/** The live login token, locked in `tx` until it commits; an unknown or expired one is a 401. */
export async function lockLoginToken(tx: TransactionSql, token: string): Promise<LoginTokenRow> {
  const [row] = await tx<LoginTokenRow[]>`
    select user_id, webauthn_challenge from login_tokens
    where token_hash = ${hashOf(token)} and expires_at > now() for update`;
  if (!row) throw new GatewayError("login_token_invalid", { param: "login_token" });
  return row;
}

export async function setLoginChallenge(sql: Sql, token: string, challenge: string): Promise<string> {
  const [row] = await sql<{ user_id: string }[]>`
    update login_tokens set webauthn_challenge = ${challenge}
    where token_hash = ${hashOf(token)} and expires_at > now() returning user_id`;
  if (!row) throw new GatewayError("login_token_invalid", { param: "login_token" });
  return row.user_id;
}

export async function spendLoginToken(tx: TransactionSql, token: string): Promise<void> {
  await tx`delete from login_tokens where token_hash = ${hashOf(token)}`;
}
