import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { createClientIp } from "../../http/client-ip.js";
import { createEmailCodes } from "./email-codes.js";
import { login } from "./login.js";
import { me } from "./me.js";
import { signup } from "./signup.js";
import { verifyEmail } from "./verify-email.js";

/** Dashboard accounts: sign-up, e-mail verification, login, and who is signed in. */
export function authRoutes(deps: ApiDeps): Router {
  const router = Router();
  const clientIp = createClientIp(deps.config.TRUSTED_PROXIES);
  const codes = createEmailCodes({ sql: deps.sql, secret: deps.config.JWT_SECRET });
  router.post("/auth/signup", signup(deps, codes, clientIp));
  router.post("/auth/verify-email", verifyEmail(deps, codes, clientIp));
  router.post("/auth/login", login(deps, clientIp));
  router.get("/auth/me", deps.sessions.require, me(deps));
  return router;
}
