import type { Mode } from "@gateway/domain";
import { GatewayError } from "@gateway/errors";
import { type Response, Router } from "express";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import { sessionPrincipal } from "../../auth/session-token.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import {
  createWebhook,
  deleteWebhook,
  endpointSecretAnswer,
  listDeliveriesOfPayment,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  type WebhookCaller,
} from "./webhook-handlers.js";

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
    if (typeof isTest !== "boolean") {
      throw new GatewayError("parameter_invalid", {
        param: "is_test",
        message: "is_test must be a boolean.",
      });
    }
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

/** The dashboard (session JWT) manages both modes; `is_test` is then required. */
const sessionCaller: WebhookCaller = {
  scope: (res) => ({ merchantId: sessionPrincipal(res).merchantId, mode: undefined }),
  modeForNewEndpoint: (isTest) => {
    if (typeof isTest !== "boolean") {
      throw new GatewayError(isTest === undefined ? "parameter_missing" : "parameter_invalid", {
        param: "is_test",
        message: "is_test (boolean) is required.",
      });
    }
    return isTest ? "test" : "live";
  },
};

function dashboardModeFilter(res: Response): Mode | undefined {
  const mode = res.req.query.mode;
  if (mode === undefined) return undefined;
  if (mode !== "test" && mode !== "live") {
    throw new GatewayError("parameter_invalid", { param: "mode", message: "mode must be test or live." });
  }
  return mode;
}

/**
 * Merchant API (`/webhooks`, x-api-key) and the dashboard's JSON (`/dashboard/api/webhooks`,
 * session JWT): the same operations with different callers.
 */
export function webhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const auth = requireApiKey(deps.sql);
  const keyScope = (_req: unknown, res: Response) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return `key:${merchantId}:${mode}`;
  };
  const sessionScope = (_req: unknown, res: Response) => `session:${sessionPrincipal(res).merchantId}`;
  // Creation answers hold the endpoint's secret: their stored copies leave it out.
  const secretAnswer = endpointSecretAnswer(deps);
  const idem = idempotency(deps.sql, keyScope);
  router.post(
    "/webhooks",
    auth,
    idempotency(deps.sql, keyScope, secretAnswer),
    createWebhook(deps, apiKeyCaller),
  );
  router.get("/webhooks", auth, listWebhooks(deps, apiKeyCaller));
  router.delete("/webhooks/:id", auth, deleteWebhook(deps, apiKeyCaller));
  router.get("/webhooks/:id/deliveries", auth, listWebhookDeliveries(deps, apiKeyCaller));
  router.post("/webhooks/:id/redeliver", auth, idem, redeliverWebhook(deps, apiKeyCaller));

  const session = deps.sessions.require;
  const sessionIdem = idempotency(deps.sql, sessionScope);
  router.post(
    "/dashboard/api/webhooks",
    session,
    idempotency(deps.sql, sessionScope, secretAnswer),
    createWebhook(deps, sessionCaller),
  );
  router.get("/dashboard/api/webhooks", session, listWebhooks(deps, sessionCaller, dashboardModeFilter));
  router.delete("/dashboard/api/webhooks/:id", session, deleteWebhook(deps, sessionCaller));
  router.get("/dashboard/api/webhooks/:id/deliveries", session, listWebhookDeliveries(deps, sessionCaller));
  router.get("/dashboard/api/webhook-deliveries", session, listDeliveriesOfPayment(deps, sessionCaller));
  router.post(
    "/dashboard/api/webhooks/:id/redeliver",
    session,
    sessionIdem,
    redeliverWebhook(deps, sessionCaller),
  );
  return router;
}
