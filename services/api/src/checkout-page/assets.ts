import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AssetLinks } from "./page-html.js";

export interface Asset {
  body: Buffer;
  contentType: string;
  /** A prefix of the content's SHA-256: the `v` of the URL the page links. */
  version: string;
}

const FILES: Record<string, string> = {
  "checkout.css": "text/css; charset=utf-8",
  "checkout.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

export const ASSET_PREFIX = "/gateway/assets/";

/**
 * The page's own files, read once at start-up. Each link carries a content hash (`?v=`), so a
 * browser may keep the file for a year and a deploy still reaches every customer at once. No SRI:
 * the files are same-origin, and during a rolling deploy a page from one replica may fetch its
 * script from another, which SRI would turn into a broken page.
 */
export function loadAssets(): { files: Map<string, Asset>; links: AssetLinks } {
  const files = new Map<string, Asset>();
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
    const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
    files.set(name, { body, contentType, version });
  }
  const href = (name: string) => `${ASSET_PREFIX}${name}?v=${files.get(name)!.version}`;
  return {
    files,
    links: { css: href("checkout.css"), js: href("checkout.js"), favicon: href("favicon.svg") },
  };
}

/** Long caching only for the version this process has; anything else may be another deploy's. */
export function assetCacheControl(asset: Asset, requestedVersion: unknown): string {
  return requestedVersion === asset.version ? "public, max-age=31536000, immutable" : "public, max-age=60";
}
