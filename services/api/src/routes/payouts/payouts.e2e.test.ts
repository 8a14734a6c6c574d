// End to end in test mode: a simulated paid payment credits the balance net of fee, a code is
// mailed, the payout is made and settlement completes it with payout.* events.
import { randomBytes } from "node:crypto";
import { checkLedger } from "@gateway/ledger";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let settlement: Settlement;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  settlement = await startTestSettlement(api);
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

describe("payouts end to end (test mode)", () => {
  it("paid payment → balance net of fee → code by mail → payout → completed with payout.* events", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const keys = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth, body: {} });
    expect(keys.status).toBe(201);
    const testKey = keys.body.test_key as string;

    const payment = await call(api.baseUrl, "POST", "/payments", {
      headers: { "x-api-key": testKey },
      body: { amount: 20, currency: "USD" },
    });
    expect(payment.status).toBe(201);
    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    expect(wallet.status, JSON.stringify(wallet.body)).toBeLessThan(300);
    const sim = await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(sim.status, JSON.stringify(sim.body)).toBeLessThan(300);
    await waitFor(async () => {
      const res = await call(api.baseUrl, "GET", `/payments/${payment.body.id}`, {
        headers: { "x-api-key": testKey },
      });
      return res.body.status === "completed";
    });

    // 20.00 less the 1% fee (0.20).
    const context = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: owner.auth });
    expect(context.body.total_available).toBe(19.8);
    expect(context.body.balances[0]).toMatchObject({ chain: "solana", available: 19.8, pending: 0 });
    const live = await call(api.baseUrl, "GET", "/payouts/context", { headers: owner.auth });
    expect(live.body.total_available).toBe(0);

    const destination = bs58.encode(randomBytes(32));
    const otpRes = await call(api.baseUrl, "POST", "/payouts/request-otp", {
      headers: owner.auth,
      body: { chain: "solana", destination_address: destination, mode: "test" },
    });
    expect(otpRes.status).toBe(202);
    const mail = await catcher.waitForMail({ to: owner.email, subject: "payout code" });
    // Settlement paused while the payout is made: a test-mode payout completes within milliseconds
    // of its creation, so the reservation would otherwise be read only when settlement is slower
    // than the next request (CI once saw it completed already).
    await settlement.stop();
    const created = await call(api.baseUrl, "POST", "/payouts", {
      headers: { ...owner.auth, "idempotency-key": `e2e-${randomBytes(4).toString("hex")}` },
      body: {
        chain: "solana",
        coin_symbol: "USDC",
        amount: 19.8,
        destination_address: destination,
        otp: codeIn(mail.subject),
        mode: "test",
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: "pending", amount: "19.80", net_amount: "19.50" });
    const reserved = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: owner.auth });
    expect(reserved.body.balances[0]).toMatchObject({ available: 0, pending: 19.8 });
    settlement = await startTestSettlement(api);

    await waitFor(async () => {
      const res = await call(api.baseUrl, "GET", `/payouts/${created.body.id}`, { headers: owner.auth });
      return res.body.status === "completed";
    });
    const list = await call(api.baseUrl, "GET", "/payouts?mode=test", { headers: owner.auth });
    expect(list.body.data[0]).toMatchObject({
      id: created.body.id,
      status: "completed",
      simulated: true,
      destination,
      transaction_hash: null,
    });
    const events = await api.db.sql<{ type: string }[]>`
      select type from events where payout_id = ${created.body.id} order by seq`;
    expect(events.map((e) => e.type)).toEqual(["payout.processing", "payout.completed"]);
    const after = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: owner.auth });
    expect(after.body.balances[0]).toMatchObject({ available: 0, pending: 0 });

    // Balances equal credits minus payouts; the platform kept the fee and the network fee.
    const accounts = await api.db.sql<{ kind: string; balance: bigint }[]>`
      select kind, balance from ledger_balances where mode = 'test' and chain = 'solana' and coin = 'USDC'
        and (merchant_id = ${owner.merchantId} or merchant_id is null) order by kind`;
    expect(Object.fromEntries(accounts.map((a) => [a.kind, a.balance]))).toMatchObject({
      merchant_available: 0n,
      merchant_reserved: 0n,
      platform_fees: 200_000n,
      platform_gas_recovered: 300_000n,
      platform_vault: 500_000n,
    });
    expect(await checkLedger(api.db.sql)).toEqual({
      total: 0n,
      crossedTransfers: [],
      driftedAccounts: [],
    });
  });

  it("credits payments net of the 1% fee with its 0.10 USD minimum at the boundaries", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const keys = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth, body: {} });
    const testKey = keys.body.test_key as string;
    // 0.50 (minimum payment: fee 0.10), 9.99 (1% under the minimum: 0.10), 10.00 (1% is the
    // minimum), 10.04 (1% = 10.04 cents, rounds to 0.10), 10.50 (10.5 cents, half up to 0.11), 25.00 (0.25).
    const amounts = [0.5, 9.99, 10, 10.04, 10.5, 25];
    for (const amount of amounts) {
      const payment = await call(api.baseUrl, "POST", "/payments", {
        headers: { "x-api-key": testKey },
        body: { amount, currency: "USD" },
      });
      expect(payment.status).toBe(201);
      await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/generate-wallet`, {
        body: { chain: "sui", coin: "USDT" },
      });
      await call(api.baseUrl, "POST", `/payments/checkout/${payment.body.id}/simulate`, {
        body: { outcome: "paid" },
      });
    }
    const fees = [0.1, 0.1, 0.1, 0.1, 0.11, 0.25];
    const expected = amounts.reduce((sum, a, i) => sum + Math.round((a - fees[i]!) * 100), 0) / 100;
    await waitFor(async () => {
      const ctx = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: owner.auth });
      return ctx.body.total_available === expected;
    });
    const ctx = await call(api.baseUrl, "GET", "/payouts/context?mode=test", { headers: owner.auth });
    expect(ctx.body.balances[1]).toMatchObject({
      chain: "sui",
      available: expected,
      coins: [{ coin: "USDT", available: expected.toFixed(2) }],
    });
    const [credits] = await api.db.sql<{ fees: bigint }[]>`
      select coalesce(sum(t.amount), 0)::bigint as fees from ledger_transfers t
      join ledger_accounts a on a.id = t.credit_account
      where a.kind = 'platform_fees' and t.merchant_id = ${owner.merchantId}`;
    expect(credits!.fees).toBe(760_000n); // 0.76 USDT
    expect(await checkLedger(api.db.sql)).toEqual({
      total: 0n,
      crossedTransfers: [],
      driftedAccounts: [],
    });
  });
});
