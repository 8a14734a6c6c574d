// Passkeys and security keys as a second factor: register several, name them, list, remove, and
// the passkey path of the second login step (docs/security.md).
import { newId } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import { z } from "zod";
import { lockLoginToken, setLoginChallenge, spendLoginToken } from "../../accounts/login-tokens.js";
import {
  authenticationOptions,
  passkeysOf,
  registrationOptions,
  relyingParty,
  toPasskeyResource,
  verifyAuthentication,
  verifyRegistration,
} from "../../accounts/passkeys.js";
import { replaceRecoveryCodes } from "../../accounts/recovery-codes.js";
import {
  checkSecondFactorCode,
  dropRecoveryCodesIfNoFactorLeft,
  revokeOtherSessions,
  secondFactorsOf,
} from "../../accounts/second-factor.js";
import { memberActor } from "../../auth/audit.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { emptyBody } from "../../http/fields.js";
import { addressedBy, defineOperation, type Handler } from "../../http/operation.js";
import { OkSchema, PasskeyListSchema, RegisteredPasskeySchema } from "../../openapi/account-resources.js";
import { TokenSchema } from "../../openapi/resources.js";
import { loginEntry } from "./login.js";
import { LIMITS, throttle } from "./throttle.js";
import { loginTokenUser, noticeOwners, type TwoFactorDeps } from "./two-factor.js";

const OptionsSchema = z
  .record(z.string(), z.unknown())
  .meta({ id: "WebAuthnOptions", description: "Options for navigator.credentials (WebAuthn JSON form)." });
const webAuthnResponse = z
  .record(z.string(), z.unknown())
  .meta({ description: "The browser's credential, in WebAuthn's JSON form (@simplewebauthn/browser)." });
const loginToken = z.string().min(1).max(200);

export const passkeyRegistrationOptionsOperation = defineOperation({
  method: "post",
  path: "/auth/passkeys/register/options",
  operationId: "passkeyRegistrationOptions",
  summary: "Options (with a fresh challenge, valid 5 minutes) to register a passkey or security key.",
  auth: "bearer",
  body: emptyBody,
  responses: { 200: OptionsSchema },
});

export const registerPasskeyOperation = defineOperation({
  method: "post",
  path: "/auth/passkeys/register",
  operationId: "registerPasskey",
  summary:
    "Registers the passkey the browser made for the last options; names it. The first second factor also brings ten recovery codes.",
  auth: "bearer",
  body: z
    .strictObject({ response: webAuthnResponse, name: z.string().trim().min(1).max(64) })
    .meta({ id: "RegisterPasskeyRequest" }),
  responses: { 201: RegisteredPasskeySchema },
  errors: { 409: "This passkey is registered already." },
});

export const listPasskeysOperation = defineOperation({
  method: "get",
  path: "/auth/passkeys",
  operationId: "listPasskeys",
  summary: "The signed-in member's passkeys and security keys.",
  auth: "bearer",
  responses: { 200: PasskeyListSchema },
});

export const deletePasskeyOperation = addressedBy(
  z.object({ id: z.string().max(100) }),
  "No such passkey of yours.",
)({
  method: "delete",
  path: "/auth/passkeys/{id}",
  operationId: "deletePasskey",
  summary: "Removes a passkey; needs a code from the authenticator app or a recovery code.",
  auth: "bearer",
  body: z.strictObject({ code: z.string().min(1).max(64) }).meta({ id: "DeletePasskeyRequest" }),
  responses: { 200: OkSchema },
});

export const loginPasskeyOptionsOperation = defineOperation({
  method: "post",
  path: "/auth/login/passkey/options",
  operationId: "loginPasskeyOptions",
  summary: "The second login step by passkey: options with a challenge bound to the login_token.",
  auth: "none",
  body: z.strictObject({ login_token: loginToken }).meta({ id: "LoginPasskeyOptionsRequest" }),
  responses: { 200: OptionsSchema },
  errors: { 401: "The login token is unknown, used or expired.", 409: "The member has no passkey." },
});

export const loginPasskeyOperation = defineOperation({
  method: "post",
  path: "/auth/login/passkey",
  operationId: "loginWithPasskey",
  summary: "The second login step by passkey: the signed assertion for the login_token's challenge.",
  auth: "none",
  body: z
    .strictObject({ login_token: loginToken, response: webAuthnResponse })
    .meta({ id: "LoginPasskeyRequest" }),
  responses: { 200: TokenSchema },
  errors: { 401: "The login token is unknown, used or expired." },
});

type Deps = TwoFactorDeps & Pick<ApiDeps, "config">;

async function throttleTries(deps: Deps, userId: string, req: Request) {
  await throttle(deps.limiter, [
    [`2fa:user:${userId}`, LIMITS.secondFactorPerUser],
    [`2fa:ip:${deps.clientIp(req)}`, LIMITS.secondFactorPerIp],
  ]);
}

export function passkeyRegistrationOptions(deps: Deps): Handler<typeof passkeyRegistrationOptionsOperation> {
  return async (_input, _req, res) => {
    const { userId, email } = sessionPrincipal(res);
    const options = await registrationOptions(deps.sql, relyingParty(deps.config.PUBLIC_BASE_URL), {
      id: userId,
      email,
    });
    return options as unknown as Record<string, unknown>;
  };
}

export function registerPasskey(deps: Deps): Handler<typeof registerPasskeyOperation> {
  return async ({ body: { response, name } }, req, res) => {
    const session = sessionPrincipal(res);
    await throttleTries(deps, session.userId, req);
    const rp = relyingParty(deps.config.PUBLIC_BASE_URL);
    const { row, codes } = await deps.sql.begin(async (tx) => {
      const credential = await verifyRegistration(tx, rp, session.userId, response);
      const before = await secondFactorsOf(tx, session.userId);
      const [created] = await tx<{ id: string; name: string; created_at: Date; last_used_at: null }[]>`
        insert into passkeys (id, user_id, credential_id, public_key, counter, transports, name)
        values (${newId("pk")}, ${session.userId}, ${credential.id}, ${Buffer.from(credential.publicKey)}, ${credential.counter},
                ${credential.transports ?? []}, ${name})
        on conflict (credential_id) do nothing
        returning id, name, created_at, last_used_at`;
      if (!created)
        throw new GatewayError("already_exists", { message: "This passkey is registered already." });
      await revokeOtherSessions(tx, session.userId, session.sessionId);
      await deps.audit.record(
        tx,
        { ...memberActor(session), action: "passkey.added", details: { name } },
        req,
      );
      // A member's first second factor brings recovery codes, as the authenticator app does.
      const fresh = before.recoveryCodes === 0 ? await replaceRecoveryCodes(tx, session.userId) : null;
      return { row: created, codes: fresh };
    });
    await noticeOwners(deps, session, `added the passkey "${name}"`);
    return { ...toPasskeyResource(row), recovery_codes: codes };
  };
}

export function listPasskeys({ sql }: Deps): Handler<typeof listPasskeysOperation> {
  return async (_input, _req, res) => {
    const rows = await passkeysOf(sql, sessionPrincipal(res).userId);
    return { object: "list", data: rows.map(toPasskeyResource), has_more: false };
  };
}

export function deletePasskey(deps: Deps): Handler<typeof deletePasskeyOperation> {
  return async ({ params: { id }, body: { code } }, req, res) => {
    const session = sessionPrincipal(res);
    await throttleTries(deps, session.userId, req);
    const name = await deps.sql.begin(async (tx) => {
      if (!(await checkSecondFactorCode(tx, deps.sealer, session.userId, code))) return undefined;
      const [removed] = await tx<{ name: string }[]>`
        delete from passkeys where id = ${id} and user_id = ${session.userId} returning name`;
      if (!removed) throw new GatewayError("resource_not_found", { message: "No such passkey of yours." });
      await dropRecoveryCodesIfNoFactorLeft(tx, session.userId);
      await revokeOtherSessions(tx, session.userId, session.sessionId);
      await deps.audit.record(
        tx,
        { ...memberActor(session), action: "passkey.removed", details: { name: removed.name } },
        req,
      );
      return removed.name;
    });
    if (name === undefined) throw new GatewayError("code_invalid", { param: "code" });
    await noticeOwners(deps, session, `removed the passkey "${name}"`);
    return { object: "passkey", deleted: true, id };
  };
}

export function loginPasskeyOptions(deps: Deps): Handler<typeof loginPasskeyOptionsOperation> {
  return async ({ body: { login_token: token } }) => {
    const user = await loginTokenUser(deps.sql, token);
    const passkeys = await passkeysOf(deps.sql, user.id);
    if (passkeys.length === 0)
      throw new GatewayError("state_conflict", { message: "No passkey is registered." });
    const options = await authenticationOptions(relyingParty(deps.config.PUBLIC_BASE_URL), passkeys);
    await setLoginChallenge(deps.sql, token, options.challenge);
    return options as unknown as Record<string, unknown>;
  };
}

export function loginWithPasskey(deps: Deps): Handler<typeof loginPasskeyOperation> {
  return async ({ body: { login_token: token, response } }, req) => {
    const user = await loginTokenUser(deps.sql, token);
    await throttleTries(deps, user.id, req);
    const rp = relyingParty(deps.config.PUBLIC_BASE_URL);
    try {
      await deps.sql.begin(async (tx) => {
        const { webauthn_challenge: challenge } = await lockLoginToken(tx, token);
        if (!challenge) throw new GatewayError("passkey_invalid", { param: "response" });
        await verifyAuthentication(tx, rp, user.id, challenge, response);
        await spendLoginToken(tx, token);
      });
    } catch (err) {
      if (err instanceof GatewayError && err.code === "passkey_invalid")
        await deps.audit.record(deps.sql, loginEntry(user, "login.failed", { reason: "passkey" }), req);
      throw err;
    }
    await deps.audit.record(deps.sql, loginEntry(user, "login.succeeded", { method: "passkey" }), req);
    return { token: await deps.sessions.issue(user.id, deps.audit.origin(req)) };
  };
}
