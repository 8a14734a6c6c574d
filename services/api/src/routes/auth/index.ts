import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { createClientIp } from "../../http/client-ip.js";
import { mount } from "../../http/operation.js";
import { createEmailCodes } from "./email-codes.js";
import { login, loginOperation } from "./login.js";
import { me, meOperation } from "./me.js";
import { signup, signupOperation } from "./signup.js";
import { verifyEmail, verifyEmailOperation } from "./verify-email.js";

export const authOperations = [signupOperation, verifyEmailOperation, loginOperation, meOperation] as const;

/** Dashboard accounts: sign-up, e-mail verification, login, and who is signed in. */
export function authRoutes(deps: ApiDeps): Router {
  const router = Router();
  const clientIp = createClientIp(deps.config.TRUSTED_PROXIES);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  mount(router, signupOperation, [], signup(deps, codes, clientIp));
  mount(router, verifyEmailOperation, [], verifyEmail(deps, codes, clientIp));
  mount(router, loginOperation, [], login(deps, clientIp));
  mount(router, meOperation, [deps.sessions.require], me(deps));
  return router;
}
