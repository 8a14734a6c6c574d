// One asset pipeline for both pages (the hosted checkout and the dashboard): each page's
// TypeScript is bundled by esbuild once per process, its stylesheet and icon are read from disk,
// and every file is served under a content-hashed URL with one caching policy. docs/front-end.md
// says why the bundles are built at start-up and why there is no SRI.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CHECKOUT_FILES } from "@gateway/web-checkout";
import { DASHBOARD_FILES } from "@gateway/web-dashboard";
import { type AssetLinks, BASE_STYLE, type PageFiles } from "@gateway/web-kit";
import { buildSync } from "esbuild";
import { Router } from "express";
import { keptIn } from "../kept.js";
import { SVG_CSP } from "./page-response.js";

export const PAGE_NAMES = ["checkout", "dashboard"] as const;
export type PageName = (typeof PAGE_NAMES)[number];

interface PageSource {
  /** Where the page's files are served; each page keeps its own, under its own path. */
  prefix: string;
  /** The page's script, stylesheet and icon, in its own package. */
  files: PageFiles;
  script: string;
  style: string;
}

const SOURCES: Record<PageName, PageSource> = {
  checkout: {
    prefix: "/gateway/assets/",
    files: CHECKOUT_FILES,
    script: "checkout.js",
    style: "checkout.css",
  },
  dashboard: {
    prefix: "/dashboard/assets/",
    files: DASHBOARD_FILES,
    script: "dashboard.js",
    style: "dashboard.css",
  },
};

export interface Asset {
  body: Buffer;
  contentType: string;
  /** A prefix of the content's SHA-256: the `v` of the URL the page links. */
  version: string;
}

export interface PageAssets {
  prefix: string;
  files: Map<string, Asset>;
  links: AssetLinks;
}

/**
 * The language level the pages always used (`??=`, `.at()`): Chrome 92, Firefox 90 and
 * Safari 15.4 onwards. esbuild lowers newer syntax to it.
 */
const TARGET = "es2022";

export interface Bundle {
  code: Buffer;
  /** Every source file in the bundle, relative to the working directory. */
  inputs: string[];
}

/**
 * Bundles one page's script: its modules and the contracts' lists it imports, nothing else (the
 * contracts have no dependencies; a Node import fails the build). Minified; no source map, the
 * sources are in the repository. Fixed options and no tsconfig lookup, so every replica of a
 * deploy makes the same bytes and links the same version.
 */
export function bundleScript(entry: string): Bundle {
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: TARGET,
    minify: true,
    legalComments: "none",
    charset: "utf8",
    write: false,
    metafile: true,
    tsconfigRaw: {},
    logLevel: "silent",
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild wrote nothing for ${entry}`);
  return { code: Buffer.from(output.contents), inputs: Object.keys(result.metafile.inputs) };
}

const JS = "text/javascript; charset=utf-8";

function asset(body: Buffer, contentType: string): Asset {
  return { body, contentType, version: createHash("sha256").update(body).digest("hex").slice(0, 12) };
}

function loadPage(page: PageName): PageAssets {
  const source = SOURCES[page];
  const style = Buffer.concat([readFileSync(BASE_STYLE), readFileSync(source.files.style)]);
  const files = new Map<string, Asset>([
    [source.script, asset(bundleScript(fileURLToPath(source.files.script)).code, JS)],
    [source.style, asset(style, "text/css; charset=utf-8")],
    ["favicon.svg", asset(readFileSync(source.files.favicon), "image/svg+xml")],
  ]);
  const href = (name: string) => `${source.prefix}${name}?v=${files.get(name)!.version}`;
  return {
    prefix: source.prefix,
    files,
    links: { css: href(source.style), js: href(source.script), favicon: href("favicon.svg") },
  };
}

const loaded = new Map<PageName, PageAssets>();

/** The page's files, built on first use and kept for the life of the process. */
export function pageAssets(page: PageName): PageAssets {
  return keptIn(loaded, page, loadPage);
}

/**
 * Long caching only for the version this process has: during a rolling deploy a page from one
 * replica may ask another for its version, and an answer from the wrong deploy must not stick.
 */
export function assetCacheControl(asset: Asset, requestedVersion: unknown): string {
  return requestedVersion === asset.version ? "public, max-age=31536000, immutable" : "public, max-age=60";
}

/** `GET <prefix>:name` for one page's files. Not rate limited (docs/dashboard.md, "Rate limits"). */
export function assetRoutes(assets: PageAssets): Router {
  const router = Router();
  router.get(`${assets.prefix}:name`, (req, res, next) => {
    const asset = assets.files.get(req.params.name);
    if (!asset) return next();
    res.set({
      "Content-Type": asset.contentType,
      "Cache-Control": assetCacheControl(asset, req.query.v),
      "Cross-Origin-Resource-Policy": "same-origin",
    });
    if (asset.contentType.startsWith("image/svg")) res.set("Content-Security-Policy", SVG_CSP);
    res.send(asset.body);
  });
  return router;
}
