import { Router } from "express";
import { sessionIdempotencyScope } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import { createKeypair, createKeypairOperation } from "./create-keypair.js";
import { listKeypairs, listKeypairsOperation } from "./list-keypairs.js";
import {
  activateKeypairOperation,
  deactivateKeypairOperation,
  setKeypairActive,
} from "./set-keypair-active.js";

export const apiKeyOperations = [
  createKeypairOperation,
  listKeypairsOperation,
  deactivateKeypairOperation,
  activateKeypairOperation,
] as const;

/** API keypairs, managed from the dashboard (session JWT). */
export function apiKeyRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  const idem = idempotency(deps.sql, sessionIdempotencyScope);
  mount(router, createKeypairOperation, [session], createKeypair(deps));
  mount(router, listKeypairsOperation, [session], listKeypairs(deps));
  mount(router, deactivateKeypairOperation, [session, idem], setKeypairActive(deps, false));
  mount(router, activateKeypairOperation, [session, idem], setKeypairActive(deps, true));
  return router;
}
