// The webhook, balance, payout and schedule pages in a real headless Chromium, against a real API,
// settlement (which runs the payout actor), notifier and webhook receiver, and the SMTP catcher
// for the payout codes.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  artifactsDir,
  auditAccessibility,
  type Browser,
  launchChromium,
  type Page,
  VIEWPORTS,
} from "@gateway/browser-testkit";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import {
  type Notifier,
  type Settlement,
  startTestNotifier,
  startTestSettlement,
} from "@gateway/service-harness";
import { startWebhookReceiver, type WebhookReceiver, waitFor } from "@gateway/testkit";
import { verifyWebhook } from "@gateway/webhook-signature";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, type TestAccount } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let notifier: Notifier;
let receiver: WebhookReceiver;
let browser: Browser;
let account: TestAccount;
const screenshots = artifactsDir("dashboard");

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  settlement = await startTestSettlement(api, { expiryPollMs: 200 });
  notifier = await startTestNotifier(api);
  receiver = await startWebhookReceiver(() => ({ status: 200, body: "thanks" }));
  browser = await launchChromium();
  account = await createTestAccount(api.baseUrl, catcher);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await notifier?.stop();
  await settlement?.stop();
  await receiver?.close();
  await api?.close();
  await catcher?.close();
});

async function open(viewport: keyof typeof VIEWPORTS) {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    deviceScaleFactor: viewport === "phone" ? 2 : 1,
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
    colorScheme: viewport === "desktop" ? "dark" : "light",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: api.baseUrl });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && !msg.text().includes("Failed to load resource")) errors.push(msg.text());
  });
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${api.baseUrl}/dashboard`);
  await heading(page, "Log in");
  await page.getByLabel("E-mail", { exact: true }).fill(account.email);
  await page.getByLabel("Password", { exact: true }).fill(account.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await heading(page, "Payments");
  return { context, page, errors };
}

const heading = (page: Page, name: string | RegExp) =>
  page.getByRole("heading", { level: 1, name }).waitFor();

/** Screenshot, no sideways scrolling, and an axe WCAG A/AA audit with nothing found. */
async function check(page: Page, name: string) {
  const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  expect(await auditAccessibility(page)).toEqual([]);
}

const asMerchant = (method: string, path: string, body?: unknown) =>
  call(api.baseUrl, method, path, { headers: account.auth, ...(body === undefined ? {} : { body }) });

describe("dashboard money pages in Chromium", () => {
  it("webhooks, balances, a test payout with its code, and the schedule; desktop then phone", async () => {
    const { context, page, errors } = await open("desktop");

    // Webhooks: register, see the secret once and copy it.
    await page.getByRole("link", { name: "Webhooks" }).click();
    await heading(page, "Webhooks");
    await page.getByText("No test endpoints yet.").waitFor();
    await page.getByLabel("Endpoint URL", { exact: true }).fill("not a url");
    await page.getByRole("button", { name: "Register endpoint" }).click();
    await page.getByRole("alert").filter({ hasText: /url/i }).waitFor();
    expect(await page.getByLabel("Endpoint URL", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Endpoint URL", { exact: true }).fill(receiver.url);
    await page.getByLabel("Description", { exact: true }).fill("Order system");
    // Only the events it needs; an empty choice is refused on the page.
    await page.getByLabel("All events, including ones added later").uncheck();
    await page.getByRole("button", { name: "Register endpoint" }).click();
    await page.getByRole("alert").filter({ hasText: "Pick at least one event" }).waitFor();
    await page.getByLabel("payment.completed", { exact: true }).check();
    await page.getByLabel("payout.completed", { exact: true }).check();
    await page.getByRole("button", { name: "Register endpoint" }).click();
    await page.getByRole("heading", { name: "Your endpoint's signing secret" }).waitFor();
    const secret = await page.locator('input[name="webhook_secret"]').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Copy the signing secret" }).click();
    await page.getByRole("status").filter({ hasText: "Signing secret copied" }).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(secret);
    const endpointRow = page.locator("tr[data-endpoint-id]", { hasText: receiver.url });
    await endpointRow.waitFor();
    expect(await endpointRow.textContent()).toContain("Order system");
    expect(await endpointRow.locator('td[data-label="Events"]').textContent()).toBe(
      "payment.completed, payout.completed",
    );
    await check(page, "desktop-webhooks-secret");
    await page.getByRole("button", { name: "I have saved it" }).click();
    expect(await page.content()).not.toContain(secret);
    const endpointId = (await endpointRow.getAttribute("data-endpoint-id"))!;

    // A test payment paid by simulation: a balance, and a signed payment.completed delivery.
    const keys = await asMerchant("POST", "/api-keys", {});
    const testKey = keys.body.test_key as string;
    const created = await call(api.baseUrl, "POST", "/payments", {
      headers: { "x-api-key": testKey },
      body: { amount: 12.5, currency: "USD", description: "Order 7" },
    });
    expect(created.status).toBe(201);
    const paymentId = created.body.id as string;
    await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    await call(api.baseUrl, "POST", `/payments/checkout/${paymentId}/simulate`, {
      body: { outcome: "paid" },
    });
    const completedHook = await waitFor(
      () => receiver.received.find((w) => w.headers["x-gateway-event-type"] === "payment.completed"),
      { timeoutMs: 20_000, what: "the payment.completed webhook" },
    );
    const event = verifyWebhook<{ payment: { id: string } }>({
      payload: completedHook.body,
      header: completedHook.headers["x-gateway-signature"],
      secret,
    });
    expect(event.data.payment.id).toBe(paymentId);
    await waitFor(
      async () => {
        const res = await asMerchant("GET", `/dashboard/api/webhooks/${endpointId}/deliveries`);
        return res.body.data.some(
          (d: { event_id: string; status: string }) => d.event_id === event.id && d.status === "succeeded",
        );
      },
      { timeoutMs: 10_000, what: "the delivery to be recorded" },
    );

    // Its deliveries, each attempt with status, latency and the response; then a redelivery.
    await page.getByRole("link", { name: `Deliveries to ${receiver.url}` }).click();
    await heading(page, "Webhook deliveries");
    const delivery = page.locator(`section[data-event-id="${event.id}"]`);
    await delivery.waitFor();
    expect(await delivery.getByRole("heading").textContent()).toContain("payment.completed");
    await delivery.getByText("succeeded").waitFor();
    const firstAttempt = delivery.locator("tbody tr").first();
    expect(await firstAttempt.locator('td[data-label="Status"]').textContent()).toBe("200");
    expect(await firstAttempt.locator('td[data-label="Latency"]').textContent()).toMatch(/^\d+ ms$/);
    expect(await firstAttempt.locator('td[data-label="Response"]').textContent()).toBe("thanks");
    await delivery.getByRole("button", { name: `Redeliver payment.completed ${event.id}` }).click();
    await page.getByRole("status").filter({ hasText: "is being sent again" }).waitFor();
    await waitFor(
      () => receiver.received.filter((w) => w.headers["x-gateway-event-id"] === event.id).length === 2,
      { timeoutMs: 10_000, what: "the redelivery" },
    );
    await delivery.locator("tbody tr").nth(1).waitFor();
    await check(page, "desktop-webhook-deliveries");

    // Balances: the simulated payment's net amount, in test mode.
    const context0 = await asMerchant("GET", "/payouts/context?mode=test");
    const usdc = context0.body.balances[0].coins.find((c: { coin: string }) => c.coin === "USDC");
    expect(Number(usdc.available)).toBeGreaterThan(5);
    await page.getByRole("link", { name: "Balances & payouts" }).click();
    await heading(page, "Balances & payouts");
    const solana = page.locator('section[data-chain="solana"]');
    expect(await solana.locator('tr[data-coin="USDC"] td[data-label="Available"]').textContent()).toBe(
      usdc.available,
    );
    await page
      .getByText(`${context0.body.total_available.toFixed(2)} USD`)
      .first()
      .waitFor();
    await page.getByText("No test payouts yet.").waitFor();

    // A payout larger than the balance: the code step works, the balance check refuses it.
    const destination = bs58.encode(randomBytes(32));
    await page.getByLabel("Amount", { exact: true }).fill("1000");
    await page.getByLabel("Destination address", { exact: true }).fill(destination);
    let lastMail = catcher.messages({ to: account.email })[0]?.id;
    await page.getByRole("button", { name: "E-mail me a code" }).click();
    let mail = await catcher.waitForMail({ to: account.email, subject: "payout code", afterId: lastMail });
    lastMail = mail.id;
    await page.getByText(destination).first().waitFor();
    await page.getByLabel("Code", { exact: true }).fill(codeIn(mail.subject));
    await page.getByRole("button", { name: "Pay out" }).click();
    await page.getByRole("alert").filter({ hasText: "Insufficient balance" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain(`${usdc.available} USDC available`);
    await check(page, "desktop-payout-insufficient");

    // A payout within it: a new code, a wrong one refused, the right one pays; listed completed.
    await page.getByRole("button", { name: "Change details" }).click();
    await page.getByLabel("Amount", { exact: true }).fill("5");
    await page.getByRole("button", { name: "E-mail me a code" }).click();
    mail = await catcher.waitForMail({ to: account.email, subject: "payout code", afterId: lastMail });
    await page
      .getByLabel("Code", { exact: true })
      .fill(codeIn(mail.subject) === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Pay out" }).click();
    await page.getByRole("alert").filter({ hasText: "That code is wrong" }).waitFor();
    await page.getByLabel("Code", { exact: true }).fill(codeIn(mail.subject));
    await page.getByRole("button", { name: "Pay out" }).click();
    await page.getByRole("status").filter({ hasText: "Payout of 5.00 USDC requested" }).waitFor();
    const payoutRow = page.locator("tr[data-payout-id]");
    await payoutRow.filter({ hasText: "completed" }).waitFor();
    const rowText = (await payoutRow.textContent())!;
    expect(rowText).toContain("5.00 USDC");
    expect(rowText).toContain(destination);
    expect(rowText).toContain("simulated");
    const listed = await asMerchant("GET", "/payouts?mode=test");
    expect(listed.body.data).toMatchObject([{ status: "completed", amount: "5.00", destination }]);
    const expectedLeft = (Number(usdc.available) - 5).toFixed(2);
    await solana
      .locator('tr[data-coin="USDC"] td[data-label="Available"]', { hasText: expectedLeft })
      .waitFor();
    await check(page, "desktop-payouts");

    // The schedule.
    await page.getByRole("link", { name: "Payout schedule" }).click();
    await heading(page, "Payout schedule");
    await page.getByText("No test schedule yet").waitFor();
    await page.getByLabel("Hour (UTC)", { exact: true }).selectOption({ label: "07:00 UTC" });
    await page.getByLabel("Minimum amount", { exact: true }).fill("10");
    await page.getByRole("button", { name: "Save schedule" }).click();
    await page.getByRole("status").filter({ hasText: "Schedule saved: every day at 07:00 UTC." }).waitFor();
    await page.getByText("07:00 UTC every day").waitFor();
    const schedule = await asMerchant("GET", "/payouts/schedule?mode=test");
    expect(schedule.body).toMatchObject({ hour: 7, enabled: true, minimum_amount: "10.00" });
    await page.getByLabel("Pay out automatically every day").uncheck();
    await page.getByRole("button", { name: "Save schedule" }).click();
    await page.getByRole("status").filter({ hasText: "automatic payouts are paused" }).waitFor();
    expect((await asMerchant("GET", "/payouts/schedule?mode=test")).body.enabled).toBe(false);
    await check(page, "desktop-schedule");
    expect(errors).toEqual([]);

    // The same pages on a 360 px phone: cards, not tables, and nothing wider than the screen.
    const phone = await open("phone");
    await phone.page.getByRole("link", { name: "Webhooks" }).click();
    await phone.page.locator("tr[data-endpoint-id]").waitFor();
    await check(phone.page, "phone-webhooks");
    await phone.page.getByRole("link", { name: `Deliveries to ${receiver.url}` }).click();
    await phone.page.locator(`section[data-event-id="${event.id}"]`).waitFor();
    await check(phone.page, "phone-webhook-deliveries");
    await phone.page.getByRole("link", { name: "Balances & payouts" }).click();
    await phone.page.locator("tr[data-payout-id]").waitFor();
    await check(phone.page, "phone-payouts");
    await phone.page.getByRole("link", { name: "Payout schedule" }).click();
    await phone.page.getByText("Paused").waitFor();
    await check(phone.page, "phone-schedule");
    expect(phone.errors).toEqual([]);
    await phone.context.close();

    // Deleting the endpoint.
    await page.getByRole("link", { name: "Webhooks" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: `Delete endpoint ${receiver.url}` }).click();
    await page.getByRole("status").filter({ hasText: "Endpoint deleted." }).waitFor();
    await page.getByText("No test endpoints yet.").waitFor();
    expect((await asMerchant("GET", "/dashboard/api/webhooks")).body.data).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
