import { type AssetLinks, pageHead } from "@gateway/web-kit";

/**
 * The shell of the single-page dashboard. Everything it shows is drawn by its script
 * (client/main.ts) from the JSON API with textContent, so no data reaches the page as markup.
 */
export function dashboardShell(links: AssetLinks): string {
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
