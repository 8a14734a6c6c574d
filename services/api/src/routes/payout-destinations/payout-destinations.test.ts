import { randomBytes, randomUUID } from "node:crypto";
import { creditPayment } from "@gateway/ledger";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

// The signer as production runs it: a day's delay before a live destination takes effect.
const DAY_MS = 86_400_000;
let api: TestApi;
let catcher: MailCatcher;
let db: TestDatabase;
let testBus: TestBus;
let signer: TestSigner;

beforeAll(async () => {
  catcher = await createMailCatcher();
  [db, testBus, signer] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    startTestSigner({ payoutPolicy: { destinationDelaySeconds: { live: 86_400, test: 0 } } }),
  ]);
  api = await startTestApi(
    { SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" },
    { db, testBus, signer },
  );
});
afterAll(async () => {
  await api?.close();
  await signer?.close();
  await testBus?.cleanup();
  await db?.drop();
  await catcher?.close();
});

const solanaAddress = () => bs58.encode(randomBytes(32));

async function mailedCode(
  account: TestAccount,
  path: string,
  body: Record<string, unknown>,
  subject: string,
) {
  const before = catcher.messages({ to: account.email })[0]?.id ?? "0";
  const res = await call(api.baseUrl, "POST", path, { headers: account.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return codeIn((await catcher.waitForMail({ to: account.email, subject, afterId: before })).subject);
}

async function linkWallet(account: TestAccount, address: string) {
  const otp = await mailedCode(
    account,
    "/payout-wallets/solana/request-code",
    { address },
    "payout wallet code",
  );
  const before = catcher.messages({ to: account.email })[0]?.id ?? "0";
  const set = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
    headers: account.auth,
    body: { address, otp },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const mail = await catcher.waitForMail({
    to: account.email,
    subject: "payout wallet was changed",
    afterId: before,
  });
  return { set, mail };
}

async function fund(account: TestAccount, units: bigint, mode: "live" | "test" = "live") {
  await db.sql.begin((tx) =>
    creditPayment(tx, {
      mode,
      chain: "solana",
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId: account.merchantId,
      gross: units + 100_000n,
      fee: 100_000n,
      net: units,
    }),
  );
}

const destinations = async (account: TestAccount, query = "") =>
  call(api.baseUrl, "GET", `/payout-destinations${query}`, { headers: account.auth });

describe("payout destinations: happy path", () => {
  it("a linked wallet joins the signer's allow-list, live after the delay, and the merchant is told when", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const address = solanaAddress();
    const { set, mail } = await linkWallet(owner, address);
    const effective = Date.parse(set.body.effective_at);
    expect(effective - Date.now()).toBeGreaterThan(DAY_MS - 60_000);
    expect(mail.text).toContain(set.body.effective_at);
    expect(mail.text).toContain(`DELETE /payout-destinations/solana/${address}?mode=live`);
    const list = await destinations(owner);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          object: "payout_destination",
          mode: "live",
          address,
          linked: true,
          status: "pending",
        }),
        expect.objectContaining({ mode: "test", address, linked: true, status: "active" }),
      ]),
    );
    expect((await destinations(owner, "?mode=test")).body.data).toHaveLength(1);
  });

  it("refuses a live payout to an address still in its delay, before the code is checked", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 5_000_000n);
    const address = solanaAddress();
    await linkWallet(owner, address);
    const res = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { chain: "solana", coin_symbol: "USDC", amount: 2, otp: "000000" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      type: "invalid_request_error",
      code: "destination_not_allowed",
      param: "destination_address",
    });
    expect(res.body.error.message).toMatch(/allow-list from \d{4}-/);
  });

  it("asks for an explicit new address after its code: 409 until it takes effect, the merchant mailed", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 5_000_000n);
    await fund(owner, 5_000_000n, "test");
    const address = solanaAddress();
    const body = { chain: "solana", destination_address: address, mode: "live" };
    const otp = await mailedCode(owner, "/payouts/request-otp", body, "payout code");
    const before = catcher.messages({ to: owner.email })[0]?.id ?? "0";
    const res = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, coin_symbol: "USDC", amount: 2, otp },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe("destination_not_allowed");
    const mail = await catcher.waitForMail({
      to: owner.email,
      subject: "New solana payout destination",
      afterId: before,
    });
    expect(mail.text).toContain(address);
    expect((await destinations(owner, "?mode=live")).body.data).toEqual([
      expect.objectContaining({ address, linked: false, status: "pending" }),
    ]);
    // Nothing was reserved.
    const payouts = await call(api.baseUrl, "GET", "/payouts", { headers: owner.auth });
    expect(payouts.body.data).toEqual([]);
    // Test payouts are simulated and never reach the signer: the allow-list does not apply.
    const testBody = { chain: "solana", destination_address: address, mode: "test" };
    const testOtp = await mailedCode(owner, "/payouts/request-otp", testBody, "payout code");
    const simulated = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...testBody, coin_symbol: "USDC", amount: 2, otp: testOtp },
    });
    expect(simulated.status, JSON.stringify(simulated.body)).toBe(201);
  });
});

describe("payout destinations: errors and security", () => {
  it("cancels a destination, which then stays cancelled; unknown ones are 404", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const address = solanaAddress();
    await linkWallet(owner, address);
    const cancelled = await call(api.baseUrl, "DELETE", `/payout-destinations/solana/${address}`, {
      headers: owner.auth,
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ address, mode: "live", status: "cancelled", linked: false });
    expect(cancelled.body.cancelled_at).toEqual(expect.any(String));
    const unknown = await call(api.baseUrl, "DELETE", `/payout-destinations/solana/${solanaAddress()}`, {
      headers: owner.auth,
    });
    expect(unknown.status).toBe(404);
    const bad = await call(api.baseUrl, "DELETE", "/payout-destinations/solana/not-an-address", {
      headers: owner.auth,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("address_invalid");
  });

  it("shows and cancels only the merchant's own destinations, with the session token only", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const other = await createTestAccount(api.baseUrl, catcher);
    const address = solanaAddress();
    await linkWallet(owner, address);
    expect((await destinations(other)).body.data).toEqual([]);
    const foreign = await call(api.baseUrl, "DELETE", `/payout-destinations/solana/${address}`, {
      headers: other.auth,
    });
    expect(foreign.status).toBe(404);
    expect((await destinations(owner, "?mode=live")).body.data[0].status).toBe("pending");
    const anonymous = await call(api.baseUrl, "GET", "/payout-destinations");
    expect(anonymous.status).toBe(401);
  });
});
