import { Router } from "express";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { createKeypair } from "./create-keypair.js";
import { listKeypairs } from "./list-keypairs.js";
import { setKeypairActive } from "./set-keypair-active.js";

/** API keypairs, managed from the dashboard (session JWT). */
export function apiKeyRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  const idem = idempotency(deps.sql, (_req, res) => `session:${sessionPrincipal(res).merchantId}`);
  router.post("/api-keys", session, createKeypair(deps));
  router.get("/api-keys", session, listKeypairs(deps));
  router.post("/api-keys/:id/deactivate", session, idem, setKeypairActive(deps, false));
  router.post("/api-keys/:id/activate", session, idem, setKeypairActive(deps, true));
  return router;
}
