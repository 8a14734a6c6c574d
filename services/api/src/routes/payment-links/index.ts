import { GatewayError } from "@gateway/errors";
import { Router } from "express";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import { sessionIdempotencyScope, sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import {
  createPaymentLink,
  dashboardLinkOperations as dashboard,
  deactivateLink,
  type LinkCaller,
  listLinks,
  merchantLinkOperations as merchant,
} from "./link-operations.js";

export { paymentLinkPageRoutes } from "./open-link.js";

export const paymentLinkOperations = [...Object.values(merchant), ...Object.values(dashboard)] as const;

/** A key acts in its own mode only, as with payments. */
const keyCaller: LinkCaller = {
  merchantId: (res) => apiKeyPrincipal(res).merchantId,
  modeFor: (res) => apiKeyPrincipal(res).mode,
  scope: (res) => apiKeyPrincipal(res).mode,
};

/** The dashboard manages both modes: `is_test` says a new link's, `mode` a listing's. */
const sessionCaller: LinkCaller = {
  merchantId: (res) => sessionPrincipal(res).merchantId,
  modeFor: (_res, body) => {
    if (body.is_test === undefined) throw new GatewayError("parameter_missing", { param: "is_test" });
    return body.is_test ? "test" : "live";
  },
  scope: (_res, query) => query.mode,
};

/** `/payment-links` (x-api-key) and `/dashboard/api/payment-links` (session JWT). */
export function paymentLinkRoutes(deps: ApiDeps): Router {
  const router = Router();
  const key = requireApiKey(deps.sql);
  const keyIdempotency = idempotency(deps.sql, (_req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return `key:${merchantId}:${mode}`;
  });
  mount(router, merchant.create, [key, keyIdempotency], createPaymentLink(deps, keyCaller));
  mount(router, merchant.list, [key], listLinks(deps, keyCaller));
  mount(router, merchant.deactivate, [key], deactivateLink(deps, keyCaller));
  const session = deps.sessions.require;
  const sessionIdempotency = idempotency(deps.sql, sessionIdempotencyScope);
  mount(router, dashboard.create, [session, sessionIdempotency], createPaymentLink(deps, sessionCaller));
  mount(
    router,
    dashboard.list,
    [session],
    listLinks(deps, { ...sessionCaller, scope: (_res, q) => q.mode ?? "live" }),
  );
  mount(router, dashboard.deactivate, [session], deactivateLink(deps, sessionCaller));
  return router;
}
