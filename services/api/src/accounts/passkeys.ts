// Passkeys and security keys (WebAuthn) through @simplewebauthn/server: the relying party is the
// dashboard's own origin (PUBLIC_BASE_URL), so a response made for another origin or RP ID, or for
// a challenge we did not issue or already spent, fails verification.
import type { Sql, TransactionSql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";

export const CHALLENGE_TTL_SECONDS = 300;

export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** Read at each call: the public URL is the origin browsers sign for. */
export function relyingParty(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname, origin: url.origin, name: "Gateway" };
}

export interface PasskeyRow {
  id: string;
  credential_id: string;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export function toPasskeyResource(row: Pick<PasskeyRow, "id" | "name" | "created_at" | "last_used_at">) {
  return {
    id: row.id,
    object: "passkey" as const,
    name: row.name,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

export async function passkeysOf(db: Sql | TransactionSql, userId: string): Promise<PasskeyRow[]> {
  return db<PasskeyRow[]>`
    select id, credential_id, public_key, counter::text, transports, name, created_at, last_used_at
    from passkeys where user_id = ${userId} order by created_at, id`;
}

const invalid = (cause?: unknown) => new GatewayError("passkey_invalid", { param: "response", cause });

/** Registration options for the user, with a fresh challenge that replaces any earlier one. */
export async function registrationOptions(sql: Sql, rp: RelyingParty, user: { id: string; email: string }) {
  const existing = await passkeysOf(sql, user.id);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({
      id: p.credential_id,
      transports: p.transports as AuthenticatorTransportFuture[],
    })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  await sql`
    insert into webauthn_challenges (user_id, challenge, expires_at)
    values (${user.id}, ${options.challenge}, now() + make_interval(secs => ${CHALLENGE_TTL_SECONDS}))
    on conflict (user_id) do update set challenge = excluded.challenge, expires_at = excluded.expires_at`;
  return options;
}

/** Verifies a registration against the user's live challenge (spent either way) in `tx`. */
export async function verifyRegistration(
  tx: TransactionSql,
  rp: RelyingParty,
  userId: string,
  response: Record<string, unknown>,
) {
  const [row] = await tx<{ challenge: string }[]>`
    delete from webauthn_challenges where user_id = ${userId} and expires_at > now() returning challenge`;
  if (!row) throw invalid();
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: row.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch (cause) {
    throw invalid(cause);
  }
  if (!verified.verified) throw invalid();
  return verified.registrationInfo.credential;
}

/** Authentication options for a login: the user's credentials and a challenge for the caller to store. */
export async function authenticationOptions(rp: RelyingParty, passkeys: PasskeyRow[]) {
  return generateAuthenticationOptions({
    rpID: rp.id,
    userVerification: "preferred",
    allowCredentials: passkeys.map((p) => ({
      id: p.credential_id,
      transports: p.transports as AuthenticatorTransportFuture[],
    })),
  });
}

/** Verifies a login assertion by one of the user's passkeys; answers the passkey's id. */
export async function verifyAuthentication(
  tx: TransactionSql,
  rp: RelyingParty,
  userId: string,
  challenge: string,
  response: Record<string, unknown>,
): Promise<string> {
  const passkey = (await passkeysOf(tx, userId)).find((p) => p.credential_id === response.id);
  if (!passkey) throw invalid();
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(passkey.public_key),
        counter: Number(passkey.counter),
        transports: passkey.transports as AuthenticatorTransportFuture[],
      },
      requireUserVerification: false,
    });
  } catch (cause) {
    throw invalid(cause);
  }
  if (!verified.verified) throw invalid();
  await tx`update passkeys set counter = ${verified.authenticationInfo.newCounter}, last_used_at = now()
    where id = ${passkey.id}`;
  return passkey.id;
}
