import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CHECKOUT_FILES } from "@gateway/web-checkout";
import { DASHBOARD_FILES } from "@gateway/web-dashboard";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dashboardPageRoutes } from "../dashboard/page.js";
import { assetCacheControl, bundleScript, PAGE_NAMES, type PageName, pageAssets } from "./assets.js";
import { PAGE_CSP } from "./page-response.js";

const ENTRIES: Record<PageName, URL> = { checkout: CHECKOUT_FILES.script, dashboard: DASHBOARD_FILES.script };
const entry = (page: PageName) => fileURLToPath(ENTRIES[page]);

describe("the bundles", () => {
  it.each(PAGE_NAMES)("%s: only its own modules and the contracts, the same bytes every time", (page) => {
    const first = bundleScript(entry(page));
    const again = bundleScript(entry(page));
    expect(again.code.equals(first.code)).toBe(true);
    // The checkout also takes its languages' formats (not their tables: the page carries its own).
    const clientDir = page === "checkout" ? "web-checkout/src/(client|i18n)/" : "web-dashboard/src/client/";
    // The one third-party module: the dashboard's passkeys go through WebAuthn's browser half.
    const webAuthn = /\/node_modules\/@simplewebauthn\/browser\/esm\/[\w/]+\.js$/;
    // Of the chain registry, only the chains' labels: the modules carry bs58 and Node's Buffer.
    const labels = /packages\/chains\/src\/labels\.ts$/;
    for (const input of first.inputs) {
      if ((page === "dashboard" && webAuthn.test(input)) || labels.test(input)) continue;
      expect(input, `${page} bundles ${input}`).toMatch(
        new RegExp(`packages/(${clientDir}|contracts/src/)[\\w-]+\\.ts$`),
      );
    }
    // Self-contained: no import left for the browser to resolve.
    expect(first.code.toString()).not.toMatch(/(^|[;}\n])\s*import[\s{*"]/);
    expect(first.code.length).toBeLessThan(60_000);
  });

  it("need nothing outside the sources the API's image keeps: no module the contracts' index exports imports zod", () => {
    // The image bundles the pages at start-up from the contracts' sources alone (no zod beside
    // them): a value exported from the index that imports zod fails that bundle, even unused.
    const contracts = createRequire(import.meta.url).resolve("@gateway/contracts");
    const index = readFileSync(contracts, "utf8");
    const valueExports = [...index.matchAll(/^export (?!type )[^;]*from "\.\/([\w-]+)\.js";/gm)].map(
      (m) => m[1]!,
    );
    expect(valueExports.length).toBeGreaterThan(0);
    for (const name of valueExports) {
      const source = readFileSync(path.join(path.dirname(contracts), `${name}.ts`), "utf8");
      expect(source, `contracts/src/${name}.ts`).not.toMatch(/from "zod"/);
    }
  });

  it("are what the pages link, under a version that is their content's hash", () => {
    for (const page of PAGE_NAMES) {
      const assets = pageAssets(page);
      expect(pageAssets(page)).toBe(assets);
      for (const [name, asset] of assets.files) {
        expect(asset.version).toBe(createHash("sha256").update(asset.body).digest("hex").slice(0, 12));
        expect(Object.values(assets.links)).toContain(`${assets.prefix}${name}?v=${asset.version}`);
      }
    }
  });
});

describe("serving the dashboard and its assets", () => {
  let baseUrl: string;
  let close: () => void;
  beforeAll(async () => {
    const app = express().use(dashboardPageRoutes());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close?.());

  it("sends the page with the strict CSP and links hashed, same-origin files without SRI", async () => {
    const res = await fetch(`${baseUrl}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).not.toContain("integrity=");
    expect(html).not.toMatch(/<script>|<style>|style="/);
    const links = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(3);
    for (const href of links) {
      const version = new URL(href, baseUrl).searchParams.get("v");
      const file = await fetch(baseUrl + href);
      expect(file.status).toBe(200);
      const body = Buffer.from(await file.arrayBuffer());
      expect(createHash("sha256").update(body).digest("hex").slice(0, 12)).toBe(version);
      expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(file.headers.get("cross-origin-resource-policy")).toBe("same-origin");
      const stale = await fetch(`${baseUrl}${href.replace(/v=\w+/, "v=0123456789ab")}`);
      expect(stale.status).toBe(200);
      expect(stale.headers.get("cache-control")).toBe("public, max-age=60");
    }
    const js = await fetch(`${baseUrl}/dashboard/assets/dashboard.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=60");
    const icon = await fetch(`${baseUrl}/dashboard/assets/favicon.svg`);
    expect(icon.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect((await fetch(`${baseUrl}/dashboard/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/dashboard/assets/main.ts`)).status).toBe(404);
  });

  it("caches for long only the version this process has", () => {
    const asset = pageAssets("checkout").files.get("checkout.js")!;
    expect(assetCacheControl(asset, asset.version)).toBe("public, max-age=31536000, immutable");
    for (const other of [undefined, "", "0123456789ab", [asset.version]])
      expect(assetCacheControl(asset, other)).toBe("public, max-age=60");
  });
});
