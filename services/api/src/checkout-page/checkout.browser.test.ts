// The hosted checkout in a real headless Chromium, against a real API and a real settlement
// service (in-process, over PostgreSQL and NATS): what a customer sees and does, end to end.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  artifactsDir,
  auditAccessibility,
  type Browser,
  type BrowserContext,
  launchChromium,
  type Page,
  VIEWPORTS,
} from "@gateway/browser-testkit";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

const TIMEOUT = 90_000;
let api: TestApi;
let settlement: Settlement;
let browser: Browser;
let shop: Server;
let shopUrl: string;
let merchant: TestMerchant;
const screenshots = artifactsDir("checkout");

beforeAll(async () => {
  api = await startTestApi();
  // Settlement gets its own NATS connection, as it would as its own process.
  settlement = await startTestSettlement(api, { expiryPollMs: 200, ownConnection: true });
  merchant = await createTestMerchant(api.deps.sql, "Acme Coffee Roasters");
  // The merchant's "thank you" page that redirect_url points at.
  shop = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Shop</title><h1>Thanks for your order</h1><p>${req.url}</p>`);
  }).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => shop.once("listening", resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (shop ? shop.close(() => resolve()) : resolve()));
  await settlement?.stop();
  await api?.close();
});

async function createPayment(body: Record<string, unknown>): Promise<{ id: string; checkout_url: string }> {
  const res = await call(api.baseUrl, "POST", "/payments", {
    body,
    headers: { "x-api-key": merchant.testKey },
  });
  expect(res.status).toBe(201);
  return res.body;
}

interface Session {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions, CSP violations included: a clean page has none. */
  errors: string[];
}

async function open(
  viewport: keyof typeof VIEWPORTS,
  url: string,
  colorScheme: "light" | "dark" = "light",
  beforeGoto?: (page: Page) => void,
): Promise<Session> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    colorScheme,
    deviceScaleFactor: viewport === "phone" ? 2 : 1,
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: api.baseUrl });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  beforeGoto?.(page);
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  return { context, page, errors };
}

// Browser-side expressions are strings: this file is compiled without the DOM library.
const CLIPBOARD = "navigator.clipboard.readText()";

const status = (page: Page) => page.getByRole("status");

async function waitForStatus(page: Page, text: string | RegExp) {
  await status(page).filter({ hasText: text }).waitFor();
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow).toBeLessThanOrEqual(0);
}

describe("checkout page in Chromium", () => {
  it(
    "phone: pick a chain and coin, see the address and QR, simulate, see Paid, land on redirect_url",
    async () => {
      const payment = await createPayment({
        amount: 12.5,
        currency: "USD",
        description: "2 × Ethiopia Guji, 250 g",
        redirect_url: `${shopUrl}/thanks?order=1042`,
      });
      const { context, page, errors } = await open("phone", payment.checkout_url);

      await page.getByRole("heading", { level: 1, name: "Acme Coffee Roasters" }).waitFor();
      await page.getByText("2 × Ethiopia Guji, 250 g").waitFor();
      expect(await page.locator("[data-amount]").textContent()).toBe("12.50");
      await page.getByText("Test mode", { exact: true }).first().waitFor();
      await waitForStatus(page, "Choose a network and coin");
      const countdown = await page.locator("time[data-countdown]").textContent();
      expect(countdown).toMatch(/^(29|30):\d\d$/);

      // Sui first, then change our mind: the coin list follows the network.
      await page.getByRole("radio", { name: "Sui", exact: true }).check();
      await page.getByRole("radio", { name: "USDT", exact: true }).check();
      expect(await page.locator("[data-choice-amount]").textContent()).toBe("12.50 USDT on Sui");
      await page.getByRole("radio", { name: "Solana", exact: true }).check();
      await page.getByRole("radio", { name: "USDC", exact: true }).check();
      expect(await page.locator("[data-choice-amount]").textContent()).toBe("12.50 USDC on Solana");
      await shot(page, "phone-1-choose");
      expect(await auditAccessibility(page)).toEqual([]);
      await page.getByRole("button", { name: "Show deposit address" }).click();

      // The address on the page is the one the API assigned, and the QR code is rendered.
      await waitForStatus(page, "Waiting for your payment");
      const view = (await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`)).body;
      expect(view.wallet).toMatchObject({ chain: "solana", coin: "USDC", amount: "12.50" });
      expect(await page.locator("[data-wallet-address]").textContent()).toBe(view.wallet.address);
      expect(await page.locator("[data-wallet-amount]").textContent()).toBe("12.50 USDC");
      // Focus follows the step, so keyboard and screen-reader users land on what to do next.
      expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Send exactly");
      const qr = page.getByRole("img", { name: /QR code of a Solana payment request/ });
      await qr.waitFor();
      await page.waitForFunction('document.querySelector("img[data-qr]")?.naturalWidth > 0');
      expect(await page.getByRole("link", { name: "Open in wallet app" }).getAttribute("href")).toBe(
        view.wallet.payment_uri,
      );

      await page.getByRole("button", { name: "Copy address" }).click();
      await page.getByText("Address copied.").waitFor();
      expect(await page.evaluate<string>(CLIPBOARD)).toBe(view.wallet.address);
      await page.getByRole("button", { name: "Copy amount" }).click();
      expect(await page.evaluate<string>(CLIPBOARD)).toBe("12.50");

      await expectNoHorizontalScroll(page);
      await shot(page, "phone-2-wallet");
      expect(await auditAccessibility(page)).toEqual([]);

      await page.getByRole("button", { name: "Simulate Payment" }).click();
      await waitForStatus(page, "Paid. Thank you!");
      await page.getByRole("heading", { name: "Paid", exact: true }).waitFor();
      await page.getByText("Acme Coffee Roasters has received your payment of 12.50 USD.").waitFor();
      await shot(page, "phone-3-paid");

      await page.waitForURL(`${shopUrl}/thanks?order=1042`);
      expect(await page.locator("h1").textContent()).toBe("Thanks for your order");

      const final = await call(api.baseUrl, "GET", `/payments/${payment.id}`, {
        headers: { "x-api-key": merchant.testKey },
      });
      expect(final.body.status).toBe("completed");
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "desktop, dark scheme: overpaid simulation completes, shows the returned surplus, then redirects",
    async () => {
      const payment = await createPayment({
        amount: 20,
        currency: "USD",
        description: "Espresso grinder burr set",
        redirect_url: `${shopUrl}/thanks?order=2001`,
      });
      const { context, page, errors } = await open("desktop", payment.checkout_url, "dark");
      await waitForStatus(page, "Choose a network and coin");
      await page.getByRole("radio", { name: "Sui", exact: true }).check();
      await page.getByRole("radio", { name: "USDT", exact: true }).check();
      await page.getByRole("button", { name: "Show deposit address" }).click();
      await waitForStatus(page, "Waiting for your payment");
      // Sui has no payment URI: the QR code carries the bare address.
      await page.getByRole("img", { name: "QR code of the Sui deposit address" }).waitFor();
      expect(await page.getByRole("link", { name: "Open in wallet app" }).isVisible()).toBe(false);
      await expectNoHorizontalScroll(page);
      await shot(page, "desktop-1-wallet");
      expect(await auditAccessibility(page)).toEqual([]);

      // A second look at the choice keeps the customer's coin, and a new choice a new address.
      const firstAddress = await page.locator("[data-wallet-address]").textContent();
      await page.getByRole("button", { name: "Pay with another coin" }).click();
      expect(await page.getByRole("radio", { name: "USDT", exact: true }).isChecked()).toBe(true);
      await page.getByRole("radio", { name: "USDC", exact: true }).check();
      await page.getByRole("button", { name: "Show deposit address" }).click();
      await page.locator("[data-wallet-amount]").filter({ hasText: "20.00 USDC" }).waitFor();
      expect(await page.locator("[data-wallet-address]").textContent()).not.toBe(firstAddress);

      await page.getByRole("button", { name: "Overpaid" }).click();
      await waitForStatus(page, "Paid. Thank you!");
      await page.getByText("Extra amount returned: 2.00 USDC (sent)").waitFor();
      await shot(page, "desktop-2-paid-overpaid");
      await page.waitForURL(`${shopUrl}/thanks?order=2001`);
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "expired simulation: the page says so, stops the clock and offers no more actions",
    async () => {
      const payment = await createPayment({ amount: 1.5, currency: "SOL", redirect_url: `${shopUrl}/x` });
      const { context, page, errors } = await open("phone", payment.checkout_url);
      await waitForStatus(page, "Choose a network and coin");
      // A SOL payment has one option; it is chosen already.
      expect(await page.getByRole("radio", { name: "Solana", exact: true }).isChecked()).toBe(true);
      expect(await page.getByRole("radio", { name: "SOL", exact: true }).isChecked()).toBe(true);
      expect(await page.locator("[data-choice-amount]").textContent()).toBe("1.50 SOL on Solana");

      await page.getByRole("button", { name: "Expired" }).click();
      await waitForStatus(page, "This payment has expired.");
      await page.getByRole("heading", { name: "Payment expired" }).waitFor();
      expect(await page.locator("[data-countdown-row]").isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Simulate Payment" }).isVisible()).toBe(false);
      expect(await page.getByRole("button", { name: "Show deposit address" }).isVisible()).toBe(false);
      await shot(page, "phone-expired");
      expect(await auditAccessibility(page)).toEqual([]);
      // No redirect for a payment that was not paid.
      await page.waitForTimeout(1500);
      expect(page.url()).toBe(payment.checkout_url);
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "real expiry: the countdown runs down to zero and the payment expires with no simulation",
    async () => {
      const payment = await createPayment({ amount: 2, currency: "SUI" });
      const { context, page, errors } = await open("phone", payment.checkout_url);
      await page.getByRole("button", { name: "Show deposit address" }).click();
      await waitForStatus(page, "Waiting for your payment");
      // Bring the deadline close; settlement's sweeper reads it from PostgreSQL like any other.
      // The version moves as with every write to a payment, which is how the open page hears of it.
      const expiresAt = new Date(Date.now() + 5000);
      await api.deps.sql`update payments set expires_at = ${expiresAt},
        state = jsonb_set(state, '{expiresAt}', to_jsonb(${expiresAt.getTime()}::bigint)),
        version = version + 1
        where id = ${payment.id}`;
      await page
        .locator("time[data-countdown]")
        .filter({ hasText: /^0:0[0-5]$/ })
        .waitFor();
      await waitForStatus(page, "This payment has expired.");
      await page.getByRole("heading", { name: "Payment expired" }).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "keyboard only, then underpaid simulation: the partial amount is shown as returned",
    async () => {
      const payment = await createPayment({ amount: 10, currency: "USDC" });
      const { context, page, errors } = await open("phone", payment.checkout_url);
      await waitForStatus(page, "Choose a network and coin");
      // Keyboard only: arrows move within a radio group, Tab between groups, Enter submits.
      await page.getByRole("radio", { name: "Solana", exact: true }).focus();
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("Tab");
      await page.keyboard.press("ArrowRight");
      expect(await page.locator("[data-choice-amount]").textContent()).toBe("10.00 USDT on Sui");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await waitForStatus(page, "Waiting for your payment");
      expect(await page.locator("[data-wallet-amount]").textContent()).toBe("10.00 USDT");
      await page.getByRole("button", { name: "Underpaid" }).click();
      await page.getByRole("heading", { name: "Payment returned" }).waitFor();
      await page.getByText("Partial payment returned: 5.00 USDT (sent)").waitFor();
      await shot(page, "phone-underpaid");
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "follows the payment through its change stream: a change made elsewhere shows at once, without polling",
    async () => {
      const payment = await createPayment({ amount: 4, currency: "USD" });
      const path = `/payments/checkout/${payment.id}`;
      const requests: string[] = [];
      const { context, page, errors } = await open("desktop", payment.checkout_url, "light", (p) =>
        p.on("request", (request) => requests.push(new URL(request.url()).pathname)),
      );
      await waitForStatus(page, "Choose a network and coin");
      await expect.poll(() => requests.includes(`${path}/events`)).toBe(true);
      // Idle for six seconds: polling every two seconds would read the view three more times.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const viewsBefore = requests.filter((p) => p === path).length;
      await new Promise((resolve) => setTimeout(resolve, 6000));
      expect(requests.filter((p) => p === path).length).toBe(viewsBefore);

      // The customer's own device is not the only actor: here the wallet is chosen and the
      // payment simulated through the API, and the open page must learn of it by itself.
      expect(
        (await call(api.baseUrl, "POST", `${path}/generate-wallet`, { body: { chain: "sui", coin: "USDC" } }))
          .status,
      ).toBe(200);
      expect(
        (await call(api.baseUrl, "POST", `${path}/simulate`, { body: { outcome: "paid" } })).status,
      ).toBe(202);
      const started = Date.now();
      await waitForStatus(page, "Paid. Thank you!");
      // Well inside the 30 s safety poll: the notice, not a timer, brought the news.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "unknown payment id: a friendly 404 page; no payment id: a 400 page",
    async () => {
      const context = await browser.newContext({ viewport: VIEWPORTS.phone });
      const page = await context.newPage();
      const notFound = await page.goto(`${api.baseUrl}/gateway?payment_id=${randomUUID()}`);
      expect(notFound?.status()).toBe(404);
      await page.getByRole("heading", { level: 1, name: "Payment not found" }).waitFor();
      await shot(page, "phone-not-found");
      expect(await auditAccessibility(page)).toEqual([]);
      const missing = await page.goto(`${api.baseUrl}/gateway`);
      expect(missing?.status()).toBe(400);
      await page.getByRole("heading", { level: 1, name: "Payment link incomplete" }).waitFor();
      await context.close();
    },
    TIMEOUT,
  );
});
