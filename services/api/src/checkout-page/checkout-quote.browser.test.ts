// The checkout's quoted coin in a real headless Chromium: a live USD payment paid in SOL shows
// the estimate and the rate on the choice, the locked rate and its countdown on the wallet, hides
// the stale amount when the quote ends, and takes one click to a fresh quote at the new price.
import { join } from "node:path";
import {
  artifactsDir,
  auditAccessibility,
  type Browser,
  launchChromium,
  VIEWPORTS,
} from "@gateway/browser-testkit";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let settlement: Settlement;
let browser: Browser;
let merchant: TestMerchant;
const screenshots = artifactsDir("checkout-quote");

beforeAll(async () => {
  api = await startTestApi({ QUOTE_TTL_SECONDS: "4" });
  settlement = await startTestSettlement(api, { expiryPollMs: 200 });
  merchant = await createTestMerchant(api.deps.sql, "Nordic Bikes");
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await settlement?.stop();
  await api?.close();
});

async function movePrice(usd: string) {
  api.priceServer.setPrice("SOL", usd);
  await api.deps.prices!.refresh();
}

describe("checkout with a quoted coin", () => {
  it("shows the rate and the quote's countdown, and fetches a fresh quote after it ends", async () => {
    await movePrice("160.00");
    const created = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 12.5, currency: "USD", description: "Bell and bottle cage" },
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(created.status).toBe(201);
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, isMobile: true, hasTouch: true });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });
    page.on("pageerror", (err) => errors.push(err.message));
    await page.goto(created.body.checkout_url);

    await page.getByRole("status").filter({ hasText: "Choose a network and coin" }).waitFor();
    await page.getByRole("radio", { name: "Solana", exact: true }).check();
    await page.getByRole("radio", { name: "SOL", exact: true }).check();
    // The choice shows the amount in the coin at today's price, and the price itself.
    expect(await page.locator("[data-choice-amount]").textContent()).toBe("about 0.078125 SOL on Solana");
    expect(await page.locator("[data-choice-rate]").textContent()).toBe(
      "1 SOL = 160.00 USD now. The rate is locked for a while when you continue.",
    );
    await page.getByRole("radio", { name: "USDC", exact: true }).check();
    expect(await page.locator("[data-choice-amount]").textContent()).toBe("12.50 USDC on Solana");
    expect(await page.locator("[data-choice-rate]").isHidden()).toBe(true);
    await page.getByRole("radio", { name: "SOL", exact: true }).check();
    await page.getByRole("button", { name: "Show deposit address" }).click();

    // The quote: amount locked at the rate, the rate, and a countdown to the quote's end.
    await page.getByText("Rate locked:").waitFor();
    expect(await page.locator("[data-wallet-amount]").textContent()).toBe("0.078125 SOL");
    expect(await page.locator("[data-quote-rate]").textContent()).toBe("1 SOL = 160.00 USD");
    expect(await page.locator("[data-quote-countdown]").textContent()).toMatch(/^0:0[1-4]$/);
    const address = await page.locator("[data-wallet-address]").textContent();
    await page.screenshot({ path: join(screenshots, "phone-1-quote.png"), fullPage: true });
    expect(await auditAccessibility(page)).toEqual([]);

    // The price moves; the quote ends: the stale amount and address go, one action remains.
    await movePrice("125.00");
    await page.getByText("This quote has ended.").waitFor({ timeout: 10_000 });
    expect(await page.locator("[data-wallet-details]").isHidden()).toBe(true);
    expect(await page.locator("[data-quote-running]").isHidden()).toBe(true);
    await page.screenshot({ path: join(screenshots, "phone-2-quote-ended.png"), fullPage: true });
    expect(await auditAccessibility(page)).toEqual([]);
    await page.getByRole("button", { name: "Get a new quote" }).click();

    // A fresh quote at the new price, on the same address, with its own countdown.
    await page.locator("[data-quote-rate]").filter({ hasText: "1 SOL = 125.00 USD" }).waitFor();
    expect(await page.locator("[data-wallet-amount]").textContent()).toBe("0.10 SOL");
    expect(await page.locator("[data-wallet-address]").textContent()).toBe(address);
    expect(await page.locator("[data-wallet-details]").isHidden()).toBe(false);
    expect(await page.getByRole("button", { name: "Get a new quote" }).isHidden()).toBe(true);
    expect(await page.locator("[data-quote-countdown]").textContent()).toMatch(/^0:0[1-4]$/);
    const view = (await call(api.baseUrl, "GET", `/payments/checkout/${created.body.id}`)).body;
    expect(view.wallet).toMatchObject({ coin: "SOL", amount: "0.10", quote: { rate: "125.00" } });
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
