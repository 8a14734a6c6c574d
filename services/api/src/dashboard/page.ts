import { Router } from "express";
import { assetRoutes, type PageAssets, pageAssets } from "../front-end/assets.js";
import { pageHead } from "../front-end/page-head.js";
import { sendPage } from "../front-end/page-response.js";

/**
 * The shell of the single-page dashboard. Everything it shows is drawn by its script
 * (client/main.ts) from the JSON API with textContent, so no data reaches the page as markup.
 */
function shell(assets: PageAssets): string {
  const { links } = assets;
  return `${pageHead("Gateway dashboard", links, true)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="#/payments">Gateway</a>
  <nav aria-label="Main" id="nav" hidden></nav>
  <div class="account" id="account" hidden></div>
</header>
<div id="flash" class="flash" role="status" aria-live="polite"></div>
<main id="main" tabindex="-1"><p class="loading">Loading…</p></main>
<noscript><p class="panel">The dashboard needs JavaScript.</p></noscript>
</body>
</html>`;
}

/** `GET /dashboard` and its assets. Page loads are not rate limited (docs/dashboard.md, "Rate limits"). */
export function dashboardPageRoutes(): Router {
  const router = Router();
  const assets = pageAssets("dashboard");
  const html = shell(assets);
  router.get(["/dashboard", "/dashboard/"], (_req, res) => sendPage(res, 200, html));
  router.use(assetRoutes(assets));
  return router;
}
