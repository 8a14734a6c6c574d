import { randomUUID } from "node:crypto";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let merchant: TestMerchant;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  settlement = await startTestSettlement(api);
  merchant = await createTestMerchant(api.db.sql, "Receipt Shop");
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

async function payment(amount = 12.5): Promise<string> {
  const created = await call(api.baseUrl, "POST", "/payments", {
    body: { amount, currency: "USD" },
    headers: { "x-api-key": merchant.testKey },
  });
  const id = created.body.id as string;
  await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
    body: { chain: "solana", coin: "USDC" },
  });
  return id;
}

const askReceipt = (id: string, email: unknown) =>
  call(api.baseUrl, "POST", `/payments/checkout/${id}/receipt`, { body: { email } });
const simulate = (id: string, outcome: string) =>
  call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome } });
const statusOf = async (id: string) =>
  (await call(api.baseUrl, "GET", `/payments/checkout/${id}`)).body.status as string;
const email = () => `c${randomUUID().slice(0, 8)}@example.test`;

describe("receipts", () => {
  it("mails the receipt on completion, as text and HTML, once", async () => {
    const id = await payment();
    const to = email();
    const asked = await askReceipt(id, to);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ email: to });
    await simulate(id, "paid");
    const mail = await catcher.waitForMail({ to, subject: /receipt/ });
    expect(mail.subject).toBe("[Test] Your receipt from Receipt Shop: 12.50 USD");
    expect(mail.text).toContain("Merchant: Receipt Shop");
    expect(mail.text).toContain("Amount: 12.50 USD");
    expect(mail.text).toContain("Paid: 12.50 USDC on solana");
    expect(mail.text).toContain("Transaction: none: a test payment moves no funds");
    expect(mail.text).toMatch(/Date: \d{1,2} \w+ \d{4}(,| at) \d{2}:\d{2} UTC/);
    expect(mail.text).toContain(`Payment: ${id}`);
    expect(mail.html).toContain('<th align="left" style="padding:4px 12px 4px 0">Merchant</th>');
    // The event may come again (a redelivery, another replica): still one mail.
    await api.deps.receipts.sendDue(id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(catcher.messages({ to })).toHaveLength(1);
  });

  it("mails a notice with each refund when the payment is refunded", async () => {
    const id = await payment(5);
    const to = email();
    await askReceipt(id, to);
    await simulate(id, "underpaid");
    const mail = await catcher.waitForMail({ to, subject: /returned/ });
    expect(mail.subject).toBe("[Test] Your payment to Receipt Shop was returned");
    expect(mail.text).toMatch(/Returned: \d+\.\d+ USDC/);
    expect(mail.text).toContain("Transaction: none: a test refund moves no funds");
    expect(catcher.messages({ to }).map((m) => m.subject)).toEqual([mail.subject]);
  });

  it("an address given after completion gets the receipt at once; a later one replaces an unsent one", async () => {
    const id = await payment(3);
    await simulate(id, "paid");
    await waitFor(async () => (await statusOf(id)) === "completed");
    const first = email();
    const second = email();
    const pending = await payment(4);
    await askReceipt(pending, first);
    await askReceipt(pending, second);
    await simulate(pending, "paid");
    await catcher.waitForMail({ to: second, subject: /receipt/ });
    expect(catcher.messages({ to: first })).toEqual([]);

    const late = email();
    expect((await askReceipt(id, late)).status).toBe(200);
    expect(catcher.messages({ to: late })).toHaveLength(1);
  });

  it("refuses a bad address or an unknown payment", async () => {
    const id = await payment(1);
    const bad = await askReceipt(id, "not an address");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "email" });
    expect((await askReceipt(id, undefined)).body.error).toMatchObject({ code: "parameter_missing" });
    const unknown = await askReceipt(randomUUID(), email());
    expect(unknown.status).toBe(404);
  });
});
