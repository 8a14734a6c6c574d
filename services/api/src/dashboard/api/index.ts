import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { getDashboardPayment, listDashboardPayments } from "./payments.js";

/**
 * JSON read by the dashboard page, behind the session JWT. Webhooks, balances and payouts have
 * their session routes with their features (routes/webhooks, routes/payouts); the page calls those.
 */
export function dashboardApiRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  router.get("/dashboard/api/payments", session, listDashboardPayments(deps));
  router.get("/dashboard/api/payments/:id", session, getDashboardPayment(deps));
  return router;
}
