import { Router } from "express";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { createPayment } from "./create-payment.js";
import { getPayment, listPaymentsRoute } from "./read-payments.js";

/** The merchant API (x-api-key). */
export function paymentRoutes(deps: ApiDeps): Router {
  const router = Router();
  const auth = requireApiKey(deps.sql);
  const idem = idempotency(deps.sql, (_req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return `key:${merchantId}:${mode}`;
  });
  router.post("/payments", auth, idem, createPayment(deps));
  router.get("/payments", auth, listPaymentsRoute(deps));
  router.get("/payments/:id", auth, getPayment(deps));
  return router;
}
