// The home page (its chart, statuses, failures), a payment's timeline (events, transactions,
// webhook deliveries with their attempts), search, a test webhook and the exports, in a real
// headless Chromium against a real API, settlement and notifier.
import { readFileSync } from "node:fs";
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
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount, type TestAccount } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let notifier: Notifier;
let receiver: WebhookReceiver;
let browser: Browser;
let account: TestAccount;
let testKey: string;
const paid: string[] = [];
let open: { id: string; deposit_address: string };
let endpointId: string;
const screenshots = artifactsDir("dashboard-home");

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  settlement = await startTestSettlement(api);
  notifier = await startTestNotifier(api);
  receiver = await startWebhookReceiver(() => ({ status: 200, body: "thanks" }));
  browser = await launchChromium();
  account = await createTestAccount(api.baseUrl, catcher);
  const keys = await call(api.baseUrl, "POST", "/api-keys", { headers: account.auth, body: {} });
  testKey = keys.body.test_key;
  const key = { "x-api-key": testKey };
  const hook = await call(api.baseUrl, "POST", "/webhooks", { headers: key, body: { url: receiver.url } });
  endpointId = hook.body.id;
  for (const amount of [40, 12.5]) {
    const p = await call(api.baseUrl, "POST", "/payments", {
      headers: key,
      body: { amount, currency: "USD" },
    });
    await call(api.baseUrl, "POST", `/payments/checkout/${p.body.id}/simulate`, {
      body: { outcome: "paid" },
    });
    paid.push(p.body.id);
  }
  const p = await call(api.baseUrl, "POST", "/payments", {
    headers: key,
    body: { amount: 9, currency: "USDC" },
  });
  const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${p.body.id}/generate-wallet`, {
    body: { chain: "solana", coin: "USDC" },
  });
  open = { id: p.body.id, deposit_address: wallet.body.deposit_address ?? wallet.body.address };
  await waitFor(async () => {
    const done = await api.db
      .sql`select 1 from webhook_deliveries where endpoint_id = ${endpointId} and status = 'succeeded'`;
    return done.length === 2;
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await notifier?.stop();
  await settlement?.stop();
  await receiver?.close();
  await api?.close();
  await catcher?.close();
});

const heading = (page: Page, name: string | RegExp) =>
  page.getByRole("heading", { level: 1, name }).waitFor();

async function signIn(viewport: keyof typeof VIEWPORTS) {
  const context = await browser.newContext({
    viewport: VIEWPORTS[viewport],
    isMobile: viewport === "phone",
    hasTouch: viewport === "phone",
    acceptDownloads: true,
  });
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

async function check(page: Page, name: string) {
  const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  expect(await auditAccessibility(page)).toEqual([]);
}

describe("dashboard home, payment timeline and search in Chromium", () => {
  it("the home chart shows today's volume; statuses and balances beside it", async () => {
    const { context, page, errors } = await signIn("desktop");
    await page.getByRole("link", { name: "Home" }).click();
    await heading(page, "Home");
    await page.getByLabel("Mode", { exact: true }).selectOption("test");
    await page
      .getByRole("img", { name: /Completed volume per day over the last 30 days: \$52\.50 in all/ })
      .waitFor();
    const bars = page.locator("svg.volume-chart rect.chart-bar");
    expect(await bars.count()).toBe(30);
    const today = new Date().toISOString().slice(0, 10);
    const last = bars.last();
    expect(await last.getAttribute("data-day")).toBe(today);
    expect(await last.getAttribute("data-value")).toBe("52.50");
    // The axis tops at $100: today's bar is 52.5 % of the 180 px plot.
    expect(await page.locator(".chart-grid text").allTextContents()).toEqual(["$0", "$50", "$100"]);
    expect(Number(await last.getAttribute("height"))).toBeCloseTo(94.5, 1);
    expect(Number(await bars.first().getAttribute("height"))).toBe(0);
    expect(await last.locator("title").textContent()).toBe(`${today}: 2 completed, $52.50`);
    const completed = page.getByRole("row").filter({ has: page.getByRole("link", { name: "completed" }) });
    expect(await completed.getByRole("cell").last().textContent()).toBe("2");
    await page.getByRole("cell", { name: "51.97" }).waitFor();
    await page.getByText("Nothing failed recently.").waitFor();
    // No request left this origin: the chart is drawn here.
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.reload();
    await heading(page, "Home");
    expect(requests.every((u) => u.startsWith(api.baseUrl))).toBe(true);
    await check(page, "home-desktop");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a payment's timeline: events, transactions, deliveries with attempts; and a test webhook", async () => {
    const { context, page, errors } = await signIn("desktop");
    await page.goto(`${api.baseUrl}/dashboard#/payments/${paid[0]}`);
    await heading(page, "Payment 40.00 USD");
    const events = page.getByRole("list", { name: "Payment events, oldest first" });
    await events.getByText("payment.completed").waitFor();
    await page.getByText("None: test payments move nothing on chain.").waitFor();
    const deliveries = page.getByRole("list", { name: "Webhook deliveries" });
    await deliveries.getByText("payment.completed").waitFor();
    await deliveries.getByText("succeeded").waitFor();
    await deliveries
      .getByRole("list", { name: "Attempts of payment.completed" })
      .getByText(/#1 .* · 200 · \d+ ms/)
      .waitFor();
    await check(page, "payment-timeline");

    // A deposit as a watcher records it: the timeline links it to the explorer.
    await api.db.sql`update payments set state = jsonb_set(state, '{transfers}',
      '[{"transferId":"solana:3xDepositSig:0","coin":"USDC","amount":"9000000","sender":"x","status":"seen"}]')
      where id = ${open.id}`;
    await page.goto(`${api.baseUrl}/dashboard#/payments/${open.id}`);
    const txs = page.getByRole("list", { name: "On-chain transactions" });
    const link = txs.getByRole("link", { name: "3xDepositSig" });
    expect(await link.getAttribute("href")).toBe("https://explorer.solana.com/tx/3xDepositSig");
    await txs.getByText("9.00 USDC on Solana").waitFor();

    // The endpoint's test button: delivered and logged like any delivery.
    const before = receiver.received.length;
    await page.getByRole("link", { name: "Webhooks" }).click();
    await heading(page, "Webhooks");
    await page.getByRole("button", { name: `Send test event to ${receiver.url}` }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /Test event evt_\w+ sent/ })
      .waitFor();
    await waitFor(() => receiver.received.slice(before).some((r) => r.body.includes('"webhook.test"')));
    expect(errors).toEqual([]);
    await context.close();
  });

  it("search by payment id, deposit address and transaction id, on a phone", async () => {
    const { context, page, errors } = await signIn("phone");
    await page.goto(`${api.baseUrl}/dashboard#/home?mode=test`);
    await heading(page, "Home");
    const search = page.getByRole("searchbox", { name: "Search payments" });
    await search.fill(paid[1]!);
    await page.getByRole("button", { name: "Search" }).click();
    await heading(page, "Payment 12.50 USD");
    await page.goto(`${api.baseUrl}/dashboard#/search?mode=test`);
    await heading(page, "Search");
    await page.getByRole("searchbox", { name: "Search payments" }).fill(open.deposit_address);
    await page.getByRole("button", { name: "Search" }).click();
    await heading(page, "Payment 9.00 USDC");
    await page.goto(`${api.baseUrl}/dashboard#/search?mode=test`);
    await heading(page, "Search");
    await page.getByRole("searchbox", { name: "Search payments" }).fill("3xDepositSig");
    await page.getByRole("button", { name: "Search" }).click();
    await heading(page, "Payment 9.00 USDC");
    await page.goto(`${api.baseUrl}/dashboard#/search?mode=live&q=${paid[0]}`);
    await page.getByText("No live payment has that id, deposit address or transaction.").waitFor();
    await check(page, "search-phone");
    await page.getByRole("link", { name: "Search test payments" }).click();
    await heading(page, "Payment 40.00 USD");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the exports page downloads the CSV of the chosen range", async () => {
    const { context, page, errors } = await signIn("desktop");
    await page.goto(`${api.baseUrl}/dashboard#/exports?mode=test`);
    await heading(page, "Exports");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download payments (CSV)" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^payments-test-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parse(readFileSync((await download.path())!, "utf8"), { columns: true }) as {
      payment_id: string;
    }[];
    expect(rows.map((r) => r.payment_id).sort()).toEqual([...paid, open.id].sort());
    await page.getByLabel("From").fill("2020-01-01");
    await page.getByRole("button", { name: "Download payouts (CSV)" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /at most 366 days/ })
      .waitFor();
    await check(page, "exports");
    expect(errors).toEqual([]);
    await context.close();
  });
});
