import { Router } from "express";
import type { ApiDeps } from "../../deps.js";
import { mount } from "../../http/operation.js";
import { dashboardOverviewReads, dashboardOverviewOperations as overview } from "./overview.js";
import { dashboardPaymentReads, dashboardPaymentOperations as payments } from "./payments.js";

export const dashboardOperations = [
  payments.list,
  payments.get,
  overview.overview,
  overview.search,
  overview.transactions,
] as const;

/**
 * JSON read by the dashboard page, behind the session JWT. Webhooks, balances and payouts have
 * their session routes with their features (routes/webhooks, routes/payouts); the page calls those.
 */
export function dashboardApiRoutes(deps: ApiDeps): Router {
  const router = Router();
  const session = deps.sessions.require;
  const reads = dashboardPaymentReads(deps);
  mount(router, payments.list, [session], reads.list);
  mount(router, payments.get, [session], reads.get);
  const home = dashboardOverviewReads(deps);
  mount(router, overview.overview, [session], home.overview);
  mount(router, overview.search, [session], home.search);
  mount(router, overview.transactions, [session], home.transactions);
  return router;
}
