import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { createTestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
let merchant: TestMerchant;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  settlement = await startTestSettlement(api);
  merchant = await createTestMerchant(api.db.sql, "Link Shop");
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

const asKey = (key: string) => ({ "x-api-key": key });

async function createLink(body: Record<string, unknown>, key = merchant.testKey) {
  return call(api.baseUrl, "POST", "/payment-links", { body, headers: asKey(key) });
}

/** A customer opening the link: the answer itself, not where it leads. */
const open = (url: string) => fetch(url, { redirect: "manual" });

describe("payment links", () => {
  it("creates a link whose every visit makes a fresh payment and sends the customer to its checkout", async () => {
    const created = await createLink({
      amount: 25,
      currency: "usd",
      description: "T-shirt",
      redirect_url: "https://shop.example/thanks",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^plink_/),
      object: "payment_link",
      url: `${api.baseUrl}/pay/${created.body.id}`,
      qr_code_url: `${api.baseUrl}/pay/${created.body.id}/qr`,
      active: true,
      amount: "25.00",
      currency: "USD",
      description: "T-shirt",
      redirect_url: "https://shop.example/thanks",
      is_test: true,
      payments_count: 0,
      completed_count: 0,
      deactivated_at: null,
    });

    const first = await open(created.body.url);
    const second = await open(created.body.url);
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    const ids = [first, second].map(
      (r) => new URL(r.headers.get("location")!).searchParams.get("payment_id")!,
    );
    expect(ids[0]).not.toBe(ids[1]);
    expect(first.headers.get("location")).toBe(`${api.baseUrl}/gateway?payment_id=${ids[0]}`);
    const payment = await call(api.baseUrl, "GET", `/payments/${ids[0]}`, {
      headers: asKey(merchant.testKey),
    });
    expect(payment.body).toMatchObject({
      amount: "25.00",
      currency: "USD",
      description: "T-shirt",
      redirect_url: "https://shop.example/thanks",
      status: "pending",
      is_test: true,
    });

    // One of the two is paid: the list counts both, one completed.
    await call(api.baseUrl, "POST", `/payments/checkout/${ids[0]}/simulate`, { body: { outcome: "paid" } });
    await waitFor(async () => {
      const list = await call(api.baseUrl, "GET", "/payment-links", { headers: asKey(merchant.testKey) });
      const link = list.body.data.find((l: { id: string }) => l.id === created.body.id);
      return link?.payments_count === 2 && link.completed_count === 1;
    });
  });

  it("deactivates: a visit then gets a friendly page and makes no payment", async () => {
    const link = (await createLink({ amount: 5, currency: "USDC" })).body;
    const off = await call(api.baseUrl, "POST", `/payment-links/${link.id}/deactivate`, {
      headers: asKey(merchant.testKey),
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: link.id, active: false, deactivated_at: expect.any(String) });
    // Deactivating again changes nothing.
    const again = await call(api.baseUrl, "POST", `/payment-links/${link.id}/deactivate`, {
      headers: asKey(merchant.testKey),
    });
    expect(again.body).toMatchObject({ active: false, deactivated_at: off.body.deactivated_at });

    const visit = await open(link.url);
    expect(visit.status).toBe(410);
    expect(visit.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await visit.text()).toContain("This link is no longer active");
    const [count] = await api.db.sql<{ n: number }[]>`
      select count(*)::int as n from payment_link_payments where link_id = ${link.id}`;
    expect(count!.n).toBe(0);

    const missing = await open(`${api.baseUrl}/pay/plink_nothere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Payment link not found");
  });

  it("keeps links to their merchant and mode", async () => {
    const link = (await createLink({ amount: 1, currency: "USD" })).body;
    const live = await call(api.baseUrl, "GET", "/payment-links", { headers: asKey(merchant.liveKey) });
    expect(live.body.data.map((l: { id: string }) => l.id)).not.toContain(link.id);
    const other = await createTestMerchant(api.db.sql, "Other");
    const theirs = await call(api.baseUrl, "POST", `/payment-links/${link.id}/deactivate`, {
      headers: asKey(other.testKey),
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("resource_not_found");
    const liveLink = await createLink({ amount: 1, currency: "USD" }, merchant.liveKey);
    expect(liveLink.body.is_test).toBe(false);
  });

  it("refuses bad input with the documented codes", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ amount: "abc", currency: "USD" }, "amount_invalid", "amount"],
      [{ amount: 1, currency: "BTC" }, "currency_unsupported", "currency"],
      [{ amount: 1.234, currency: "USD" }, "amount_too_precise", "amount"],
      [{ amount: 1, currency: "USD", redirect_url: "javascript:alert(1)" }, "url_invalid", "redirect_url"],
      [{ amount: 1, currency: "USD", extra: 1 }, "parameter_unknown", "extra"],
    ];
    for (const [body, code, param] of cases) {
      const res = await createLink(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    expect(
      (await call(api.baseUrl, "POST", "/payment-links", { body: { amount: 1, currency: "USD" } })).status,
    ).toBe(401);
  });

  it("serves the link's QR code as SVG", async () => {
    const link = (await createLink({ amount: 3, currency: "USD" })).body;
    const qr = await fetch(link.qr_code_url);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(await qr.text()).toContain("<svg");
  });

  it("works from the dashboard in either mode", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const created = await call(api.baseUrl, "POST", "/dashboard/api/payment-links", {
      body: { amount: 9.99, currency: "USD", is_test: false },
      headers: account.auth,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ is_test: false, amount: "9.99" });
    const live = await call(api.baseUrl, "GET", "/dashboard/api/payment-links", { headers: account.auth });
    expect(live.body.data.map((l: { id: string }) => l.id)).toEqual([created.body.id]);
    const test = await call(api.baseUrl, "GET", "/dashboard/api/payment-links?mode=test", {
      headers: account.auth,
    });
    expect(test.body.data).toEqual([]);
    const off = await call(
      api.baseUrl,
      "POST",
      `/dashboard/api/payment-links/${created.body.id}/deactivate`,
      {
        headers: account.auth,
      },
    );
    expect(off.body.active).toBe(false);
    const missingMode = await call(api.baseUrl, "POST", "/dashboard/api/payment-links", {
      body: { amount: 1, currency: "USD" },
      headers: account.auth,
    });
    expect(missingMode.status).toBe(400);
    expect(missingMode.body.error).toMatchObject({ code: "parameter_missing", param: "is_test" });
  });
});
