import { Router } from "express";
import { apiKeyPrincipal, requireApiKey } from "../../auth/require-api-key.js";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import { createPayment, createPaymentOperation } from "./create-payment.js";
import { getPaymentOperation, listPaymentsOperation, paymentReads } from "./read-payments.js";

export const paymentOperations = [
  createPaymentOperation,
  listPaymentsOperation,
  getPaymentOperation,
] as const;

/** The merchant API (x-api-key). */
export function paymentRoutes(deps: ApiDeps): Router {
  const router = Router();
  const auth = requireApiKey(deps.sql);
  const idem = idempotency(deps.sql, (_req, res) => {
    const { merchantId, mode } = apiKeyPrincipal(res);
    return `key:${merchantId}:${mode}`;
  });
  mount(router, createPaymentOperation, [auth, idem], createPayment(deps));
  const reads = paymentReads(deps);
  mount(router, listPaymentsOperation, [auth], reads.list);
  mount(router, getPaymentOperation, [auth], reads.get);
  return router;
}
