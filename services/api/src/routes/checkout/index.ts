import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { idempotency } from "../../http/idempotency.js";
import { mount } from "../../http/operation.js";
import { generateWallet, generateWalletOperation } from "./generate-wallet.js";
import {
  followCheckout,
  followCheckoutOperation,
  getCheckout,
  getCheckoutOperation,
} from "./read-checkout.js";
import { receiptOperation, requestReceipt } from "./request-receipt.js";
import { simulateOperation, simulatePayment } from "./simulate-payment.js";

export const checkoutOperations = [
  getCheckoutOperation,
  followCheckoutOperation,
  generateWalletOperation,
  simulateOperation,
  receiptOperation,
] as const;

/**
 * The public checkout API, addressed by payment id alone (a UUID is unguessable). It never
 * exposes merchant secrets and never takes an API key.
 */
export function checkoutRoutes(deps: ApiDeps): Router {
  const router = Router();
  const idem = idempotency(deps.sql, (req) => `checkout:${String(req.params.id)}`);
  mount(router, getCheckoutOperation, [], getCheckout(deps));
  mount(router, followCheckoutOperation, [], followCheckout(deps));
  mount(router, generateWalletOperation, [idem], generateWallet(deps));
  mount(router, receiptOperation, [], requestReceipt(deps));
  mount(router, simulateOperation, [idem], simulatePayment(deps));
  return router;
}
