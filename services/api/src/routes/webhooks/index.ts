import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { type RequestHandler, type Response, Router } from "express";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import { sessionIdempotencyScope, sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import {
  createWebhook,
  dashboardWebhookOperations as dashboard,
  deleteWebhook,
  endpointSecretAnswer,
  listDeliveriesOfPayment,
  listWebhookDeliveries,
  listWebhooks,
  merchantWebhookOperations as merchant,
  paymentDeliveriesOperation,
  redeliverWebhook,
  testWebhook,
  type WebhookCaller,
} from "./webhook-handlers.js";

export const webhookOperations = [
  ...Object.values(merchant),
  ...Object.values(dashboard),
  paymentDeliveriesOperation,
] as const;

/**
 * An API key manages its own mode's endpoints only: the key never sees the other mode's objects,
 * so `is_test` defaults to the key's mode and may not contradict it (a test key cannot register a
 * live endpoint, and a live key does not create test objects it could not list).
 */
const apiKeyCaller: WebhookCaller = {
  scope: (res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return { merchantId, mode };
  },
  modeForNewEndpoint: (isTest, res) => {
    const { mode } = apiKeyPrincipal(res);
    if (isTest === undefined || isTest === null) return mode;
    const wanted: Mode = isTest ? "test" : "live";
    if (wanted !== mode) {
      throw new GatewayError("mode_forbidden", {
        param: "is_test",
        message: `A ${mode} key registers ${mode} endpoints only.`,
      });
    }
    return mode;
  },
};

/** The dashboard (session JWT) manages both modes; `is_test` (required there) says which. */
const sessionCaller: WebhookCaller = {
  scope: (res) => ({ merchantId: sessionPrincipal(res).merchantId, mode: undefined }),
  modeForNewEndpoint: (isTest) => (isTest ? "test" : "live"),
};

/**
 * Merchant API (`/webhooks`, x-api-key) and the dashboard's JSON (`/dashboard/api/webhooks`,
 * session JWT): the same operations with different callers.
 */
export function webhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const keyScope = (_req: unknown, res: Response) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return `key:${merchantId}:${mode}`;
  };
  mountWebhookOperations(router, deps, merchant, requireApiKey(deps.sql), keyScope, apiKeyCaller);
  const session = deps.sessions.require;
  mountWebhookOperations(router, deps, dashboard, session, sessionIdempotencyScope, sessionCaller);
  mount(router, paymentDeliveriesOperation, [session], listDeliveriesOfPayment(deps, sessionCaller));
  return router;
}

function mountWebhookOperations(
  router: Router,
  deps: ApiDeps,
  operations: typeof merchant | typeof dashboard,
  auth: RequestHandler,
  scope: (req: unknown, res: Response) => string,
  caller: WebhookCaller,
): void {
  // Creation answers hold the endpoint's secret: their stored copies leave it out.
  const secretAnswer = endpointSecretAnswer(deps);
  mount(
    router,
    operations.create,
    [auth, idempotency(deps.sql, scope, secretAnswer)],
    createWebhook(deps, caller),
  );
  mount(router, operations.list, [auth], listWebhooks(deps, caller));
  mount(router, operations.delete, [auth], deleteWebhook(deps, caller));
  mount(router, operations.deliveries, [auth], listWebhookDeliveries(deps, caller));
  mount(router, operations.redeliver, [auth, idempotency(deps.sql, scope)], redeliverWebhook(deps, caller));
  mount(router, operations.test, [auth], testWebhook(deps, caller));
}
