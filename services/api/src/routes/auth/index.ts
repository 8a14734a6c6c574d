import { Router } from "express";
import { createTotpSealer } from "../../accounts/totp.js";
import { createAudit } from "../../auth/audit.js";
import type { ApiDeps } from "../../deps.js";
import { createClientIp } from "../../http/client-ip.js";
import { mount } from "../../http/operation.js";
import { createEmailCodes } from "./email-codes.js";
import { login, loginOperation } from "./login.js";
import { me, meOperation } from "./me.js";
import {
  deletePasskey,
  deletePasskeyOperation,
  listPasskeys,
  listPasskeysOperation,
  loginPasskeyOperation,
  loginPasskeyOptions,
  loginPasskeyOptionsOperation,
  loginWithPasskey,
  passkeyRegistrationOptions,
  passkeyRegistrationOptionsOperation,
  registerPasskey,
  registerPasskeyOperation,
} from "./passkeys.js";
import { changePassword, changePasswordOperation } from "./password.js";
import { signup, signupOperation } from "./signup.js";
import {
  disableTotp,
  disableTotpOperation,
  enableTotp,
  enableTotpOperation,
  loginSecondStep,
  loginSecondStepOperation,
  setupTotp,
  setupTotpOperation,
  type TwoFactorDeps,
} from "./two-factor.js";
import { verifyEmail, verifyEmailOperation } from "./verify-email.js";

export const authOperations = [
  signupOperation,
  verifyEmailOperation,
  loginOperation,
  loginSecondStepOperation,
  meOperation,
  changePasswordOperation,
  setupTotpOperation,
  enableTotpOperation,
  disableTotpOperation,
  passkeyRegistrationOptionsOperation,
  registerPasskeyOperation,
  listPasskeysOperation,
  deletePasskeyOperation,
  loginPasskeyOptionsOperation,
  loginPasskeyOperation,
] as const;

/** Dashboard accounts: sign-up, e-mail verification, login in one or two steps, password, second factors. */
export function authRoutes(deps: ApiDeps): Router {
  const router = Router();
  const clientIp = createClientIp(deps.config.TRUSTED_PROXIES);
  const audit = createAudit(deps.config.TRUSTED_PROXIES);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  const session = [deps.sessions.require];
  const twoFactor: TwoFactorDeps = {
    ...deps,
    sealer: createTotpSealer(deps.config.WEBHOOK_SECRET_KEY),
    audit,
    clientIp,
  };
  mount(router, signupOperation, [], signup(deps, codes, clientIp));
  mount(router, verifyEmailOperation, [], verifyEmail(deps, codes, clientIp));
  mount(router, loginOperation, [], login(deps, audit, clientIp));
  mount(router, loginSecondStepOperation, [], loginSecondStep(twoFactor));
  mount(router, meOperation, session, me(deps));
  mount(router, changePasswordOperation, session, changePassword(deps, audit));
  mount(router, setupTotpOperation, session, setupTotp(twoFactor));
  mount(router, enableTotpOperation, session, enableTotp(twoFactor));
  mount(router, disableTotpOperation, session, disableTotp(twoFactor));
  const passkeys = { ...twoFactor, config: deps.config };
  mount(router, passkeyRegistrationOptionsOperation, session, passkeyRegistrationOptions(passkeys));
  mount(router, registerPasskeyOperation, session, registerPasskey(passkeys));
  mount(router, listPasskeysOperation, session, listPasskeys(passkeys));
  mount(router, deletePasskeyOperation, session, deletePasskey(passkeys));
  mount(router, loginPasskeyOptionsOperation, [], loginPasskeyOptions(passkeys));
  mount(router, loginPasskeyOperation, [], loginWithPasskey(passkeys));
  return router;
}
