// The headers of every HTML page the API serves (the checkout and the dashboard): one strict
// policy, so neither page can loosen it alone.
import type { Response } from "express";

/**
 * Everything same-origin and nothing inline: scripts and styles come from the page's asset
 * path, images from there or /gateway/qr, and the JSON from the API of the same host.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** An SVG opened on its own (an icon, a QR code) must not run anything either. */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'";

export function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": PAGE_CSP,
      "X-Frame-Options": "DENY",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    })
    .send(html);
}
