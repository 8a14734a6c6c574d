import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { mount } from "../../http/operation.js";
import {
  dashboardGetPaymentOperation,
  dashboardListPaymentsOperation,
  getDashboardPayment,
  listDashboardPayments,
} from "./payments.js";

export const dashboardOperations = [dashboardListPaymentsOperation, dashboardGetPaymentOperation] as const;

/**
 * JSON read by the dashboard page, behind the session JWT. Webhooks, balances and payouts have
 * their session routes with their features (routes/webhooks, routes/payouts); the page calls those.
 */
export function dashboardApiRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  mount(router, dashboardListPaymentsOperation, [session], listDashboardPayments(deps));
  mount(router, dashboardGetPaymentOperation, [session], getDashboardPayment(deps));
  return router;
}
