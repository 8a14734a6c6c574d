// Payouts in the isolation matrix: a real payout of merchant B (funded by a simulated paid payment,
// confirmed with its mailed code) is invisible to merchant A by id and in lists, in either mode,
// and unreachable with B's own API keys.
import { randomBytes } from "node:crypto";
import { call, createTestMerchant, startTestApi, type TestApi } from "@gateway/api/testing";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import bs58 from "bs58";
import { afterAll, beforeAll, expect, it } from "vitest";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;
beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  settlement = await startTestSettlement(api);
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

it("merchant A cannot see or reach merchant B's payout", async () => {
  const A = await createTestMerchant(api.db.sql, "A");
  const B = await createTestMerchant(api.db.sql, "B");
  const authA = { authorization: `Bearer ${await api.deps.sessions.issue(A.ownerId)}` };
  const authB = { authorization: `Bearer ${await api.deps.sessions.issue(B.ownerId)}` };

  const payment = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": B.testKey },
    body: { amount: 20, currency: "USD" },
  });
  await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/generate-wallet`, {
    body: { chain: "solana", coin: "USDC" },
  });
  await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/simulate`, {
    body: { outcome: "paid" },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ctx = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: authB });
    if (ctx.body.total_available > 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const destination = bs58.encode(randomBytes(32));
  const otp = await call(api.baseUrl, "POST", "/payouts/request-otp", {
    headers: authB,
    body: { chain: "solana", destination_address: destination, mode: "test" },
  });
  expect(otp.status, JSON.stringify(otp.body)).toBe(202);
  const mail = await catcher.waitForMail({ to: `${B.merchantId}@example.test`, subject: "payout code" });
  const code = /\b(\d{6})\b/.exec(mail.subject)?.[1];
  const created = await call(api.baseUrl, "POST", "/payouts", {
    headers: { ...authB, "idempotency-key": `iso-${randomBytes(4).toString("hex")}` },
    body: {
      chain: "solana",
      coin_symbol: "USDC",
      amount: 10,
      destination_address: destination,
      otp: code,
      mode: "test",
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;

  expect((await call(api.baseUrl, "GET", `/payouts/${id}`, { headers: authB })).status).toBe(200);
  const byA = await call(api.baseUrl, "GET", `/payouts/${id}`, { headers: authA });
  expect(byA.status).toBe(404);
  expect(byA.body.error.code).toBe("resource_not_found");
  for (const mode of ["test", "live"]) {
    const list = await call(api.baseUrl, "GET", `/payouts?mode=${mode}`, { headers: authA });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(id);
    const ctx = await call(api.baseUrl, "GET", `/payouts/context?mode=${mode}`, { headers: authA });
    expect(ctx.body.total_available).toBe(0);
  }
  for (const key of [B.testKey, B.liveKey]) {
    expect((await call(api.baseUrl, "GET", `/payouts/${id}`, { headers: { "x-api-key": key } })).status).toBe(
      401,
    );
  }
});
