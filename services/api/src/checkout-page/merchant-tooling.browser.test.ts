// Issue 42's pages in a real headless Chromium against a real API and settlement: Solana Pay's
// one-tap request on the checkout, a payment link from the dashboard to a completed test payment,
// and the checkout in two languages.
import { join } from "node:path";
import { artifactsDir, type Browser, launchChromium, type Page, VIEWPORTS } from "@gateway/browser-testkit";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import QRCode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { createTestAccount } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

const TIMEOUT = 90_000;
let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let browser: Browser;
let merchant: TestMerchant;
const screenshots = artifactsDir("merchant-tooling");

beforeAll(async () => {
  catcher = await createMailCatcher();
  // A Solana node is configured (so wallets offer the transaction request); showing it reads nothing from it.
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, SOLANA_RPC_URL: "http://127.0.0.1:9" });
  settlement = await startTestSettlement(api, { expiryPollMs: 200, ownConnection: true });
  merchant = await createTestMerchant(api.deps.sql, "Tap Shop");
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

async function open(viewport: keyof typeof VIEWPORTS, url: string, locale = "en-US") {
  const phone = viewport === "phone";
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    locale,
    isMobile: phone,
    hasTouch: phone,
    deviceScaleFactor: phone ? 2 : 1,
  });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(url);
  return { context, page, errors };
}

async function testPayment(amount: number): Promise<{ id: string; checkout_url: string }> {
  const res = await call(api.baseUrl, "POST", "/payments", {
    body: { amount, currency: "USD" },
    headers: { "x-api-key": merchant.testKey },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
const visible = (page: Page, selector: string) => page.locator(selector).isVisible();
/** An image's decoded width: above zero once it loaded. A string, as this file has no DOM types. */
const loadedWidth = (page: Page, selector: string) =>
  page.evaluate<number>(`document.querySelector(${JSON.stringify(selector)})?.naturalWidth ?? 0`);

describe("merchant tooling in Chromium", () => {
  it(
    "offers Solana Pay's transaction request first: its QR on a desktop, 'Open in wallet app' on a phone",
    async () => {
      const payment = await testPayment(12.5);
      const desktop = await open("desktop", payment.checkout_url);
      await desktop.page.getByRole("button", { name: "Show deposit address" }).click();
      await desktop.page.getByRole("heading", { name: "Pay from your wallet" }).waitFor();
      const request = `${api.baseUrl}/solana-pay/tx/${payment.id}`;
      const qr = desktop.page.locator("img[data-one-tap-qr]");
      await expect.poll(() => loadedWidth(desktop.page, "img[data-one-tap-qr]")).toBeGreaterThan(0);
      expect(await qr.getAttribute("alt")).toBe("QR code to pay 12.50 USDC from a Solana wallet");
      expect(await visible(desktop.page, "[data-one-tap-link]")).toBe(false);
      // The QR holds `solana:` and the request's URL, encoded, as the specification has it.
      const svg = await (await fetch(new URL((await qr.getAttribute("src"))!, api.baseUrl))).text();
      const expected = await QRCode.toString(`solana:${encodeURIComponent(request)}`, {
        type: "svg",
        errorCorrectionLevel: "M",
        margin: 2,
        color: { dark: "#000000", light: "#ffffff" },
      });
      expect(svg).toBe(expected);
      // The transfer QR and the address stay below as the fallback.
      await desktop.page.getByText("Or send it yourself").waitFor();
      expect(await visible(desktop.page, "img[data-qr]")).toBe(true);
      expect(await desktop.page.locator("[data-wallet-address]").textContent()).toMatch(
        /^[1-9A-HJ-NP-Za-km-z]{32,44}$/,
      );
      await shot(desktop.page, "one-tap-desktop");
      expect(desktop.errors).toEqual([]);
      await desktop.context.close();

      const phone = await open("phone", payment.checkout_url);
      const link = phone.page.getByRole("link", { name: "Open in wallet app" }).first();
      await link.waitFor();
      expect(await link.getAttribute("href")).toBe(`solana:${encodeURIComponent(request)}`);
      expect(await visible(phone.page, "img[data-one-tap-qr]")).toBe(false);
      await shot(phone.page, "one-tap-phone");
      expect(phone.errors).toEqual([]);
      await phone.context.close();
    },
    TIMEOUT,
  );

  it(
    "a payment link: made in the dashboard, opened, paid in test mode, counted",
    async () => {
      const account = await createTestAccount(api.baseUrl, catcher);
      const { context, page, errors } = await open("desktop", `${api.baseUrl}/dashboard`);
      await page.getByRole("heading", { name: "Log in" }).waitFor();
      await page.getByLabel("E-mail", { exact: true }).fill(account.email);
      await page.getByLabel("Password", { exact: true }).fill(account.password);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByRole("heading", { name: "Payments" }).waitFor();
      await page.getByRole("link", { name: "Payment links" }).click();
      await page.getByRole("heading", { name: "Payment links" }).waitFor();
      await page.getByText("No test payment links yet.").waitFor();

      await page.getByLabel("Amount", { exact: true }).fill("7.25");
      await page.getByLabel("Currency").selectOption("USD");
      await page.getByLabel("Description").fill("Gift card");
      await page.getByRole("button", { name: "Create link" }).click();
      await page.getByRole("heading", { name: "Your new link" }).waitFor();
      const card = page.locator("section[aria-label='New payment link']");
      const url = (await card.locator("code").textContent())!;
      expect(url).toMatch(new RegExp(`^${api.baseUrl}/pay/plink_`));
      await expect
        .poll(() => loadedWidth(page, "section[aria-label='New payment link'] img"))
        .toBeGreaterThan(0);
      await shot(page, "payment-link-created");

      // A customer opens it: a fresh payment's checkout, paid by simulation.
      const customer = await context.newPage();
      await customer.goto(url);
      expect(customer.url()).toMatch(/\/gateway\?payment_id=/);
      await customer.getByText("Gift card").waitFor();
      expect(await customer.locator("[data-amount]").textContent()).toBe("7.25");
      await customer.getByRole("button", { name: "Show deposit address" }).click();
      // The customer asks for a receipt, which comes once the payment completes.
      await customer.getByLabel("E-mail me a receipt").fill("buyer@example.test");
      await customer.getByRole("button", { name: "Send receipt" }).click();
      await customer.getByText("We will e-mail your receipt to buyer@example.test.").waitFor();
      await customer.getByRole("button", { name: "Simulate Payment" }).click();
      await customer.getByRole("status").filter({ hasText: "Paid. Thank you!" }).first().waitFor();
      const receipt = await catcher.waitForMail({ to: "buyer@example.test", subject: /receipt/ });
      expect(receipt.text).toContain("Amount: 7.25 USD");

      await page.reload();
      await page.getByRole("cell", { name: "1 (1 completed)" }).waitFor();
      page.once("dialog", (dialog) => void dialog.accept());
      await page.getByRole("button", { name: `Deactivate ${url}` }).click();
      await page.getByRole("cell", { name: "Inactive" }).waitFor();
      await customer.goto(url);
      await customer.getByRole("heading", { name: "This link is no longer active" }).waitFor();
      await shot(customer, "payment-link-inactive");
      expect(errors.filter((e) => !e.includes("Failed to load resource"))).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "speaks the customer's language: German from Accept-Language, Japanese from ?lang=",
    async () => {
      const payment = await testPayment(1234.5);
      const german = await open("desktop", payment.checkout_url, "de-DE");
      await german.page.getByText("Zahlung an").waitFor();
      expect(await german.page.locator("[data-amount]").textContent()).toBe("1.234,50");
      await german.page.getByRole("status").filter({ hasText: "Wählen Sie ein Netzwerk" }).waitFor();
      expect(await german.page.locator("[data-expires-clock]").textContent()).toMatch(
        /^\(bis \d{1,2}:\d{2}\)$/,
      );
      await german.page.getByRole("button", { name: "Einzahlungsadresse anzeigen" }).click();
      await german.page.getByRole("status").filter({ hasText: "Warten auf Ihre Zahlung" }).waitFor();
      await german.page.getByText("Senden Sie nur USDC im Solana-Netzwerk").waitFor();
      await shot(german.page, "checkout-de");
      expect(german.errors).toEqual([]);
      await german.context.close();

      const japanese = await open("phone", `${payment.checkout_url}&lang=ja`, "de-DE");
      await japanese.page.getByText("お支払い先").waitFor();
      expect(await japanese.page.locator("html").getAttribute("lang")).toBe("ja");
      expect(await japanese.page.locator("[data-amount]").textContent()).toBe("1,234.50");
      await japanese.page.getByRole("button", { name: "支払いをシミュレート" }).click();
      await japanese.page.getByRole("heading", { name: "お支払い完了" }).waitFor();
      expect(await japanese.page.locator("[data-result-text]").textContent()).toBe(
        "Tap Shop は 1,234.50 USD のお支払いを受け取りました。このページを閉じてかまいません。",
      );
      await shot(japanese.page, "checkout-ja");
      expect(japanese.errors).toEqual([]);
      await japanese.context.close();
    },
    TIMEOUT,
  );
});
