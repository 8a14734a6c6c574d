import { dashboardShell } from "@gateway/web-dashboard";
import { Router } from "express";
import { assetRoutes, pageAssets } from "../front-end/assets.js";
import { sendPage } from "../front-end/page-response.js";

/** `GET /dashboard` and its assets. Page loads are not rate limited (docs/dashboard.md, "Rate limits"). */
export function dashboardPageRoutes(): Router {
  const router = Router();
  const assets = pageAssets("dashboard");
  const html = dashboardShell(assets.links);
  router.get(["/dashboard", "/dashboard/"], (_req, res) => sendPage(res, 200, html));
  router.use(assetRoutes(assets));
  return router;
}
