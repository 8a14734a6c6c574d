// Authenticator-app second factor: set up, enable with one code, disable with a code, and the
// second step of a login by code (docs/security.md).
import type { Sql } from "@gateway/db";
import { GatewayError } from "@gateway/errors";
import type { Request } from "express";
import QRCode from "qrcode";
import { z } from "zod";
import { lockLoginToken, spendLoginToken } from "../../accounts/login-tokens.js";
import { replaceRecoveryCodes } from "../../accounts/recovery-codes.js";
import {
  checkSecondFactorCode,
  dropRecoveryCodesIfNoFactorLeft,
  mailOwners,
  revokeOtherSessions,
  secondFactorsOf,
} from "../../accounts/second-factor.js";
import { checkTotp, newTotpSecret, type TotpSealer } from "../../accounts/totp.js";
import { type createAudit, memberActor } from "../../auth/audit.js";
import { type SessionPrincipal, sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { emptyBody } from "../../http/fields.js";
import { defineOperation, type Handler } from "../../http/operation.js";
import { secondFactorChangedMail } from "../../mail/messages.js";
import {
  RecoveryCodesSchema,
  SecondFactorsSchema,
  TotpSetupSchema,
} from "../../openapi/account-resources.js";
import { TokenSchema } from "../../openapi/resources.js";
import { loginEntry } from "./login.js";
import { LIMITS, throttle } from "./throttle.js";

const codeField = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "A 6-digit code from the authenticator app, or a recovery code." });

export const setupTotpOperation = defineOperation({
  method: "post",
  path: "/auth/2fa/setup",
  operationId: "setupTotp",
  summary: "Starts authenticator-app set-up: a new secret, its otpauth URL and QR code.",
  auth: "bearer",
  body: emptyBody,
  responses: { 200: TotpSetupSchema },
  errors: { 409: "The authenticator app is already on; disable it first." },
});

export const enableTotpOperation = defineOperation({
  method: "post",
  path: "/auth/2fa/enable",
  operationId: "enableTotp",
  summary: "Confirms set-up with one code; answers ten recovery codes, shown once.",
  auth: "bearer",
  body: z.strictObject({ code: codeField }).meta({ id: "EnableTotpRequest" }),
  responses: { 200: RecoveryCodesSchema },
});

export const disableTotpOperation = defineOperation({
  method: "post",
  path: "/auth/2fa/disable",
  operationId: "disableTotp",
  summary: "Turns the authenticator app off; needs a current code or a recovery code.",
  auth: "bearer",
  body: z.strictObject({ code: codeField }).meta({ id: "DisableTotpRequest" }),
  responses: { 200: SecondFactorsSchema },
});

export const loginSecondStepOperation = defineOperation({
  method: "post",
  path: "/auth/login/2fa",
  operationId: "loginWithCode",
  summary: "The second login step: a TOTP or a recovery code for the login_token.",
  auth: "none",
  body: z
    .strictObject({ login_token: z.string().min(1).max(200), code: codeField })
    .meta({ id: "LoginCodeRequest" }),
  responses: { 200: TokenSchema },
  errors: { 401: "The login token is unknown, used or expired." },
});

export interface TwoFactorDeps extends Pick<ApiDeps, "sql" | "limiter" | "sessions" | "mailer" | "log"> {
  sealer: TotpSealer;
  audit: ReturnType<typeof createAudit>;
  clientIp: (req: Request) => string;
}

/** Wrong codes are throttled per member and per address, whatever the route. */
async function throttleCodes(deps: TwoFactorDeps, userId: string, req: Request) {
  await throttle(deps.limiter, [
    [`2fa:user:${userId}`, LIMITS.secondFactorPerUser],
    [`2fa:ip:${deps.clientIp(req)}`, LIMITS.secondFactorPerIp],
  ]);
}

export function setupTotp({ sql, sealer }: TwoFactorDeps): Handler<typeof setupTotpOperation> {
  return async (_input, _req, res) => {
    const { userId, email } = sessionPrincipal(res);
    const { secret, otpauthUrl } = newTotpSecret(email);
    const [updated] = await sql`
      update users set totp_secret_sealed = ${sealer.seal(userId, secret)}
      where id = ${userId} and totp_enabled_at is null returning 1`;
    if (!updated)
      throw new GatewayError("state_conflict", { message: "The authenticator app is already on." });
    const { modules } = QRCode.create(otpauthUrl, { errorCorrectionLevel: "M" });
    const rows: string[] = [];
    for (let y = 0; y < modules.size; y++)
      rows.push(Array.from({ length: modules.size }, (_, x) => (modules.get(y, x) ? "1" : "0")).join(""));
    return { secret, otpauth_url: otpauthUrl, qr_modules: rows };
  };
}

export function enableTotp(deps: TwoFactorDeps): Handler<typeof enableTotpOperation> {
  return async ({ body: { code } }, req, res) => {
    const session = sessionPrincipal(res);
    await throttleCodes(deps, session.userId, req);
    const codes = await deps.sql.begin(async (tx) => {
      if (!(await checkTotp(tx, deps.sealer, session.userId, code, { pending: true }))) return undefined;
      await tx`update users set totp_enabled_at = now() where id = ${session.userId}`;
      await revokeOtherSessions(tx, session.userId, session.sessionId);
      await deps.audit.record(tx, { ...memberActor(session), action: "totp.enabled" }, req);
      return replaceRecoveryCodes(tx, session.userId);
    });
    if (!codes) throw new GatewayError("code_invalid", { param: "code" });
    await noticeOwners(deps, session, "turned the authenticator app on");
    return { recovery_codes: codes };
  };
}

export function disableTotp(deps: TwoFactorDeps): Handler<typeof disableTotpOperation> {
  return async ({ body: { code } }, req, res) => {
    const session = sessionPrincipal(res);
    await throttleCodes(deps, session.userId, req);
    const done = await deps.sql.begin(async (tx) => {
      const method = await checkSecondFactorCode(tx, deps.sealer, session.userId, code);
      if (!method) return false;
      await tx`update users set totp_enabled_at = null, totp_secret_sealed = null where id = ${session.userId}`;
      await dropRecoveryCodesIfNoFactorLeft(tx, session.userId);
      await revokeOtherSessions(tx, session.userId, session.sessionId);
      await deps.audit.record(
        tx,
        { ...memberActor(session), action: "totp.disabled", details: { method } },
        req,
      );
      return true;
    });
    if (!done) throw new GatewayError("code_invalid", { param: "code" });
    await noticeOwners(deps, session, "turned the authenticator app off");
    const { totp, passkeys } = await secondFactorsOf(deps.sql, session.userId);
    return { object: "second_factors", totp, passkeys };
  };
}

export function loginSecondStep(deps: TwoFactorDeps): Handler<typeof loginSecondStepOperation> {
  return async ({ body: { login_token: loginToken, code } }, req) => {
    const user = await loginTokenUser(deps.sql, loginToken);
    await throttleCodes(deps, user.id, req);
    const method = await deps.sql.begin(async (tx) => {
      await lockLoginToken(tx, loginToken);
      const matched = await checkSecondFactorCode(tx, deps.sealer, user.id, code);
      if (matched) await spendLoginToken(tx, loginToken);
      if (matched === "recovery_code")
        await deps.audit.record(
          tx,
          { ...loginEntry(user, "login.succeeded", {}), action: "recovery_code.used" },
          req,
        );
      return matched;
    });
    if (!method) {
      await deps.audit.record(deps.sql, loginEntry(user, "login.failed", { reason: "second_factor" }), req);
      throw new GatewayError("code_invalid", { param: "code" });
    }
    await deps.audit.record(deps.sql, loginEntry(user, "login.succeeded", { method }), req);
    return { token: await deps.sessions.issue(user.id, deps.audit.origin(req)) };
  };
}

/** Who a live login token belongs to; unknown or expired: 401. */
export async function loginTokenUser(sql: Sql, loginToken: string) {
  const [user] = await sql.begin(async (tx) => {
    const { user_id: userId } = await lockLoginToken(tx, loginToken);
    return tx<{ id: string; merchant_id: string; email: string }[]>`
      select id, merchant_id, email from users where id = ${userId}`;
  });
  if (!user) throw new GatewayError("login_token_invalid", { param: "login_token" });
  return user;
}

export async function noticeOwners(
  deps: Pick<ApiDeps, "sql" | "mailer" | "log">,
  session: SessionPrincipal,
  change: string,
): Promise<void> {
  await mailOwners(deps, session.merchantId, (to) => secondFactorChangedMail(to, session.email, change));
}
