// The dashboard in a real headless Chromium, against a real API, a real settlement service
// (in-process, over PostgreSQL and NATS) and a real SMTP catcher: what a merchant sees and does,
// from sign-up to switching their keys off.
import { randomBytes } from "node:crypto";
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
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

const TIMEOUT = 120_000;
let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let browser: Browser;
const screenshots = artifactsDir("dashboard");

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  // Settlement gets its own NATS connection, as it would as its own process.
  settlement = await startTestSettlement(api, { expiryPollMs: 200, ownConnection: true });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

interface Session {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions, CSP violations included: a clean page has none. */
  errors: string[];
}

async function open(viewport: keyof typeof VIEWPORTS): Promise<Session> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    deviceScaleFactor: viewport === "phone" ? 2 : 1,
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
    // The desktop run checks the dark scheme, the phone run the light one.
    colorScheme: viewport === "desktop" ? "dark" : "light",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: api.baseUrl });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    // The API's 4xx answers show up as failed resource loads; they are expected in these flows.
    if (msg.type() === "error" && !msg.text().includes("Failed to load resource")) errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  const response = await page.goto(`${api.baseUrl}/dashboard`);
  expect(response?.status()).toBe(200);
  return { context, page, errors };
}

const heading = (page: Page, name: string | RegExp) =>
  page.getByRole("heading", { level: 1, name }).waitFor();

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow).toBeLessThanOrEqual(0);
}

/** Signs up, verifies with the mailed code and logs in, all through the page. */
async function signUpAndLogIn(page: Page, email: string, password: string, shots?: string) {
  await heading(page, "Log in");
  await page.getByRole("link", { name: "Create an account" }).click();
  await heading(page, "Create your account");
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Business name", { exact: true }).fill("Acme Coffee Roasters");
  await page.getByLabel("Password", { exact: true }).fill(password);
  if (shots) await shot(page, `${shots}-signup`);
  expect(await auditAccessibility(page)).toEqual([]);
  await page.getByRole("button", { name: "Sign up" }).click();

  await heading(page, "Verify your e-mail");
  expect(await page.getByLabel("E-mail", { exact: true }).inputValue()).toBe(email);
  const mail = await catcher.waitForMail({ to: email, subject: "verification code" });
  await page.getByLabel("Code", { exact: true }).fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await page.getByRole("alert").filter({ hasText: "invalid" }).waitFor();
  await page.getByLabel("Code", { exact: true }).fill(codeIn(mail.subject));
  await page.getByRole("button", { name: "Verify" }).click();

  await heading(page, "Log in");
  await page.getByRole("status").filter({ hasText: "verified" }).waitFor();
  expect(await page.getByLabel("E-mail", { exact: true }).inputValue()).toBe(email);
  await page.getByLabel("Password", { exact: true }).fill("wrong password!!");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("alert").filter({ hasText: "incorrect" }).waitFor();
  await page.getByLabel("Password", { exact: true }).fill(password);
  if (shots) await shot(page, `${shots}-login`);
  await page.getByRole("button", { name: "Log in" }).click();
  await heading(page, "Payments");
}

describe("dashboard in Chromium", () => {
  it(
    "desktop: sign up, verify, log in, generate keys, see a paid test payment and its timeline, link a wallet, deactivate the keys",
    async () => {
      const { context, page, errors } = await open("desktop");
      const email = `owner-${randomBytes(4).toString("hex")}@example.test`;
      await signUpAndLogIn(page, email, "a long enough password", "desktop");
      await page.getByText("No payments match these filters yet.").waitFor();

      // Keys: shown once, copied, then only their prefixes remain.
      await page.getByRole("link", { name: "API keys" }).click();
      await heading(page, "API keys");
      await page.getByRole("button", { name: "Generate a keypair" }).click();
      await page.getByRole("heading", { name: "Your new keys" }).waitFor();
      const testKey = await page.locator('input[name="test_key"]').inputValue();
      const liveKey = await page.locator('input[name="live_key"]').inputValue();
      expect(testKey).toMatch(/^gw_test_[0-9A-Za-z]{40}$/);
      expect(liveKey).toMatch(/^gw_live_[0-9A-Za-z]{40}$/);
      await page.getByRole("button", { name: "Copy the test key" }).click();
      await page.getByRole("status").filter({ hasText: "Test key copied" }).waitFor();
      expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(testKey);
      await shot(page, "desktop-keys-reveal");
      expect(await auditAccessibility(page)).toEqual([]);
      await page.getByRole("button", { name: "I have saved them" }).click();
      expect(await page.locator('input[name="test_key"]').count()).toBe(0);
      expect(await page.content()).not.toContain(testKey);
      await page.locator('td[data-label="Test key"]', { hasText: testKey.slice(0, 12) }).waitFor();

      // A payment made with the test key through the REST API, paid through the checkout's
      // simulation: the dashboard lists it and shows its events.
      const created = await call(api.baseUrl, "POST", "/payments", {
        headers: { "x-api-key": testKey },
        body: { amount: 12.5, currency: "USD", description: "Order 1042" },
      });
      expect(created.status).toBe(201);
      const paymentId = created.body.id as string;
      await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/generate-wallet`, {
        body: { chain: "solana", coin: "USDC" },
      });
      const simulated = await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/simulate`, {
        body: { outcome: "paid" },
      });
      expect(simulated.status).toBe(202);
      await waitFor(
        async () => {
          const res = await call(api.baseUrl, "GET", `/payments/${paymentId}`, {
            headers: { "x-api-key": testKey },
          });
          return res.body.status === "completed";
        },
        { timeoutMs: 20_000, what: "the simulated payment to complete" },
      );
      await waitFor(
        async () => (await api.db.sql`select 1 from events where payment_id = ${paymentId}`).length > 0,
        { timeoutMs: 20_000, what: "the payment's events" },
      );

      await page.getByRole("link", { name: "Payments" }).click();
      await heading(page, "Payments");
      const row = page.locator(`tr[data-payment-id="${paymentId}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain("12.50 USD");
      expect(await row.textContent()).toContain("completed");
      expect(await row.textContent()).toContain("Order 1042");
      // Filters: live mode has nothing; test mode filtered by "completed" has it.
      await page.getByLabel("Mode", { exact: true }).selectOption("live");
      await page.getByText("No payments match these filters yet.").waitFor();
      await page.getByLabel("Mode", { exact: true }).selectOption("test");
      await page.getByLabel("Status", { exact: true }).selectOption("expired");
      await page.getByText("No payments match these filters yet.").waitFor();
      await page.getByLabel("Status", { exact: true }).selectOption("completed");
      await row.waitFor();
      await shot(page, "desktop-payments");
      expect(await auditAccessibility(page)).toEqual([]);

      await row.getByRole("link", { name: "12.50 USD" }).click();
      await heading(page, "Payment 12.50 USD");
      await page.getByText(paymentId).waitFor();
      const timeline = page.getByRole("list", { name: "Payment events, oldest first" });
      await timeline.getByText("payment.created").waitFor();
      await timeline.getByText("payment.completed").waitFor();
      await shot(page, "desktop-payment-detail");
      expect(await auditAccessibility(page)).toEqual([]);

      // Payout wallet: a code mailed for this address only.
      await page.getByRole("link", { name: "Payout wallets" }).click();
      await heading(page, "Payout wallets");
      const address = bs58.encode(randomBytes(32));
      await page.getByLabel("New Solana address", { exact: true }).fill("not-an-address");
      await page.getByRole("button", { name: "E-mail me a code" }).first().click();
      await page.getByRole("alert").filter({ hasText: "solana address" }).waitFor();
      const before = catcher.messages({ to: email })[0]!.id;
      await page.getByLabel("New Solana address", { exact: true }).fill(address);
      await page.getByRole("button", { name: "E-mail me a code" }).first().click();
      const walletMail = await catcher.waitForMail({
        to: email,
        subject: "payout wallet code",
        afterId: before,
      });
      await page.getByLabel("Code", { exact: true }).fill(codeIn(walletMail.subject));
      await page.getByRole("button", { name: "Save wallet" }).click();
      await page.getByRole("status").filter({ hasText: "Solana payout wallet saved." }).waitFor();
      await page.getByText(address).waitFor();
      await shot(page, "desktop-wallets");
      expect(await auditAccessibility(page)).toEqual([]);

      // Deactivate: both keys are refused at once.
      await page.getByRole("link", { name: "API keys" }).click();
      await heading(page, "API keys");
      await page.getByRole("button", { name: /^Deactivate keypair/ }).click();
      await page.getByRole("status").filter({ hasText: "Keypair deactivated" }).waitFor();
      await page.getByRole("button", { name: /^Activate keypair/ }).waitFor();
      for (const key of [testKey, liveKey]) {
        const refused = await call(api.baseUrl, "GET", `/payments/${paymentId}`, {
          headers: { "x-api-key": key },
        });
        expect(refused.status).toBe(401);
        const create = await call(api.baseUrl, "POST", "/payments", {
          headers: { "x-api-key": key },
          body: { amount: 1, currency: "USD" },
        });
        expect(create.status).toBe(401);
      }
      await shot(page, "desktop-keys");
      expect(await auditAccessibility(page)).toEqual([]);

      // Logging out forgets the session.
      await page.getByRole("button", { name: "Log out" }).click();
      await heading(page, "Log in");
      expect(await page.evaluate<string | null>('sessionStorage.getItem("gateway.session")')).toBeNull();
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it(
    "phone: the whole flow fits a 360 px screen and payment rows become cards",
    async () => {
      const { context, page, errors } = await open("phone");
      const email = `phone-${randomBytes(4).toString("hex")}@example.test`;
      await signUpAndLogIn(page, email, "another long password", "phone");
      await expectNoHorizontalScroll(page);

      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("button", { name: "Generate a keypair" }).click();
      const testKey = await page.locator('input[name="test_key"]').inputValue();
      await expectNoHorizontalScroll(page);
      await shot(page, "phone-keys-reveal");

      const created = await call(api.baseUrl, "POST", "/payments", {
        headers: { "x-api-key": testKey },
        body: { amount: 3, currency: "USDC", description: "Phone order" },
      });
      expect(created.status).toBe(201);
      await page.getByRole("link", { name: "Payments" }).click();
      const row = page.locator(`tr[data-payment-id="${created.body.id}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain("pending");
      // Cards, not a table: the header row is hidden and each cell names its column.
      expect(
        await page
          .locator("table.list thead")
          .boundingBox()
          .then((box) => box?.height ?? 0),
      ).toBeLessThanOrEqual(1);
      await expectNoHorizontalScroll(page);
      await shot(page, "phone-payments");
      expect(await auditAccessibility(page)).toEqual([]);

      // Overpaid by simulation: the detail shows the surplus and its refund.
      const paymentId = created.body.id as string;
      await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/generate-wallet`, {
        body: { chain: "sui", coin: "USDT" },
      });
      await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/simulate`, {
        body: { outcome: "overpaid" },
      });
      await waitFor(
        async () => {
          const res = await call(api.baseUrl, "GET", `/payments/${paymentId}`, {
            headers: { "x-api-key": testKey },
          });
          return res.body.status === "completed" && res.body.refunds.length > 0;
        },
        { timeoutMs: 20_000, what: "the overpaid payment to complete with a refund" },
      );
      await row.getByRole("link").click();
      await heading(page, "Payment 3.00 USDC");
      await page.getByText("Refund (overpayment)").waitFor();
      await page.getByText("Overpaid").waitFor();
      await expectNoHorizontalScroll(page);
      await shot(page, "phone-payment-detail");
      expect(await auditAccessibility(page)).toEqual([]);

      await page.getByRole("link", { name: "Payout wallets" }).click();
      await heading(page, "Payout wallets");
      await expectNoHorizontalScroll(page);
      await shot(page, "phone-wallets");
      expect(await auditAccessibility(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    TIMEOUT,
  );

  it("serves the page with a strict CSP and same-origin assets only", async () => {
    const res = await fetch(`${api.baseUrl}/dashboard`);
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith("/") || url.startsWith("#")).toBe(true);
    expect(html).not.toMatch(/<script>|style=/);
  });
});
