import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Response, Router } from "express";

const FILES: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};
const ASSET_PREFIX = "/dashboard/assets/";

/** Same-origin only and nothing inline; the page talks to the JSON API of the same host. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

interface Asset {
  body: Buffer;
  contentType: string;
  href: string;
  integrity: string;
}

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
    assets.set(name, {
      body,
      contentType,
      // The content hash in the URL lets browsers cache for long and still get every deploy.
      href: `${ASSET_PREFIX}${name}?v=${version}`,
      integrity: `sha384-${createHash("sha384").update(body).digest("base64")}`,
    });
  }
  return assets;
}

/**
 * The shell of the single-page dashboard. Everything it shows is drawn by dashboard.js from the
 * JSON API with textContent, so no data reaches the page as markup.
 */
function shell(assets: Map<string, Asset>): string {
  const css = assets.get("dashboard.css")!;
  const js = assets.get("dashboard.js")!;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>Gateway dashboard</title>
<link rel="icon" href="${assets.get("favicon.svg")!.href}" type="image/svg+xml">
<link rel="stylesheet" href="${css.href}" integrity="${css.integrity}">
<script type="module" src="${js.href}" integrity="${js.integrity}"></script>
</head>
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
  const assets = loadAssets();
  const html = shell(assets);
  const sendPage = (res: Response) => {
    res
      .status(200)
      .set({
        "Content-Type": "text/html; charset=utf-8",
        "Content-Security-Policy": DASHBOARD_CSP,
        "X-Frame-Options": "DENY",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
      })
      .send(html);
  };
  router.get(["/dashboard", "/dashboard/"], (_req, res) => sendPage(res));
  router.get(`${ASSET_PREFIX}:name`, (req, res, next) => {
    const asset = assets.get(req.params.name);
    if (!asset) return next();
    res
      .status(200)
      .set({
        "Content-Type": asset.contentType,
        "Cache-Control": "public, max-age=31536000, immutable",
        "Cross-Origin-Resource-Policy": "same-origin",
      })
      .send(asset.body);
  });
  return router;
}
