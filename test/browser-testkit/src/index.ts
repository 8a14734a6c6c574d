// Headless Chromium for browser tests: the Debian `chromium` package driven by playwright-core.
// Playwright's own browser downloads are not used; the machine's Chromium is the one we test on.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type LaunchOptions, type Page } from "playwright-core";

export type { Browser, BrowserContext, Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Quiet, deterministic flags: no GPU, no QUIC, no first-run UI, and no background traffic
 * (updates, sync, component downloads) that would reach for the internet during a test.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface LaunchChromiumOptions {
  /** Defaults to /usr/bin/chromium (Debian's `chromium` package). */
  executablePath?: string;
  /** Appended to CHROMIUM_ARGS. */
  args?: string[];
}

/**
 * Launches a fresh headless Chromium. Each launch gets a new, empty profile: playwright passes
 * Chromium a temporary --user-data-dir of its own and deletes it on close (it refuses one in
 * `args`), so no cookies, storage or cache leak between tests. Close the browser in afterAll.
 */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<Browser> {
  const executablePath = options.executablePath ?? CHROMIUM_PATH;
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}. Install Debian's package: apt-get install -y chromium ` +
        "(or run test/browser-testkit/scripts/ensure-chromium.sh).",
    );
  }
  const launchOptions: LaunchOptions = {
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    timeout: 60_000,
  };
  return chromium.launch(launchOptions);
}

/** The repository's test/artifacts directory (git-ignored), created on first use. */
export function artifactsDir(...subdirs: string[]): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "artifacts", ...subdirs);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Common viewports: a small Android phone and a laptop screen. */
export const VIEWPORTS = {
  phone: { width: 360, height: 780 },
  desktop: { width: 1280, height: 860 },
} as const;

export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core (WCAG 2.x A and AA rules) on the page as it is now and returns what fails.
 * axe is evaluated through the DevTools protocol, which a page's Content-Security-Policy does
 * not govern, so the page is audited exactly as shipped, strict CSP included.
 */
export async function auditAccessibility(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const tags = JSON.stringify(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]);
  return page.evaluate<AccessibilityViolation[]>(`
    axe.run(document, { runOnly: { type: "tag", values: ${tags} }, resultTypes: ["violations"] })
      .then((r) => r.violations.map((v) => ({
        id: v.id, impact: v.impact ?? null, help: v.help,
        targets: v.nodes.map((n) => n.target.join(" ")),
      })))`);
}
