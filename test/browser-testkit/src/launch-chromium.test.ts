import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditAccessibility, CHROMIUM_PATH, launchChromium } from "./index.js";

let origin: string;
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html" });
  res.end("<!doctype html><title>kit</title><h1>ready</h1>");
});

beforeAll(async () => {
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("launchChromium", () => {
  it("drives Debian's Chromium headless, and every launch starts from an empty profile", async () => {
    const first = await launchChromium();
    try {
      const page = await first.newPage();
      await page.goto(origin);
      expect(await page.textContent("h1")).toBe("ready");
      expect(await page.evaluate<boolean>("navigator.webdriver")).toBe(true);
      await page.evaluate("localStorage.setItem('left-behind', 'yes')");
      // A second context of the same browser is isolated too.
      const other = await (await first.newContext()).newPage();
      await other.goto(origin);
      expect(await other.evaluate<string | null>("localStorage.getItem('left-behind')")).toBeNull();
    } finally {
      await first.close();
    }
    const second = await launchChromium();
    try {
      const page = await second.newPage();
      await page.goto(origin);
      expect(await page.evaluate<string | null>("localStorage.getItem('left-behind')")).toBeNull();
      expect(second.version()).toMatch(/^\d+\./);
    } finally {
      await second.close();
    }
  }, 90_000);

  it("finds accessibility violations with axe, even under a strict Content-Security-Policy", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.route("**/*", (route) =>
        route.fulfill({
          status: 200,
          headers: { "content-type": "text/html", "content-security-policy": "default-src 'none'" },
          body: '<!doctype html><html lang="en"><title>t</title><main><img src="/x.png"><button></button></main></html>',
        }),
      );
      await page.goto(origin);
      const ids = (await auditAccessibility(page)).map((v) => v.id).sort();
      expect(ids).toEqual(["button-name", "image-alt"]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("says how to install Chromium when the binary is missing", async () => {
    await expect(launchChromium({ executablePath: "/nonexistent/chromium" })).rejects.toThrow(
      /apt-get install -y chromium/,
    );
    expect(CHROMIUM_PATH).toBe("/usr/bin/chromium");
  });
});
