// The start of every HTML page of ours (checkout, dashboard), rendered from escaped values only.

/** The URLs a page links for its files, each under its content's version. */
export interface AssetLinks {
  css: string;
  js: string;
  favicon: string;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The `<head>` every page of ours shares: its title (escaped here), icon, style sheet and, when it has one, script. */
export function pageHead(title: string, assets: AssetLinks, withScript: boolean, lang = "en"): string {
  const script = withScript ? `\n<script type="module" src="${assets.js}"></script>` : "";
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${assets.favicon}" type="image/svg+xml">
<link rel="stylesheet" href="${assets.css}">${script}
</head>`;
}
