import { randomBytes, randomUUID } from "node:crypto";
import { checkLedger, creditPayment } from "@gateway/ledger";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant } from "../../../test/merchant.js";
import { codeIn, createTestAccount, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { PAYOUT_CODE_MAX_ATTEMPTS } from "./payout-codes.js";

let api: TestApi;
let catcher: MailCatcher;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(async () => {
  await api?.close();
  await catcher?.close();
});

const solanaAddress = () => bs58.encode(randomBytes(32));
const suiAddress = () => `0x${randomBytes(32).toString("hex")}`;

/** Balance as a completed payment leaves it: gross in, fee to the platform, net to the merchant. */
async function fund(
  account: TestAccount,
  units: bigint,
  opts: { mode?: "live" | "test"; chain?: "solana" | "sui" } = {},
) {
  await api.db.sql.begin((tx) =>
    creditPayment(tx, {
      mode: opts.mode ?? "live",
      chain: opts.chain ?? "solana",
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId: account.merchantId,
      gross: units + 100_000n,
      fee: 100_000n,
      net: units,
    }),
  );
}

async function requestOtp(account: TestAccount, body: Record<string, unknown>): Promise<string> {
  const before = catcher.messages({ to: account.email })[0]?.id ?? "0";
  const res = await call(api.baseUrl, "POST", "/payouts/request-otp", { headers: account.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const mail = await catcher.waitForMail({ to: account.email, subject: "payout code", afterId: before });
  expect(mail.text).toContain(res.body.destination_address);
  return codeIn(mail.subject);
}

const context = async (account: TestAccount, mode = "live") =>
  (await call(api.baseUrl, "GET", `/payouts/context?mode=${mode}`, { headers: account.auth })).body;

async function expectLedgerSound() {
  expect(await checkLedger(api.db.sql)).toEqual({
    total: 0n,
    crossedTransfers: [],
    driftedAccounts: [],
  });
}

describe("payouts: happy path", () => {
  it("shows the balance, mails a code, accepts the payout and reserves the amount at once", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 25_000_000n);
    const before = await context(owner);
    expect(before).toMatchObject({
      object: "payout_context",
      mode: "live",
      total_available: 25,
      balances: [
        {
          chain: "solana",
          available: 25,
          pending: 0,
          coins: [{ coin: "USDC", available: "25.00", pending: "0.00", payable: true }],
          manual_payout_network_fee: "0.30",
        },
        { chain: "sui", available: 0, pending: 0, coins: [] },
      ],
      wallets: [],
    });
    const destination = solanaAddress();
    const otp = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const res = await call(api.baseUrl, "POST", "/payouts", {
      headers: { ...owner.auth, "idempotency-key": "po-1" },
      body: { chain: "solana", coin_symbol: "usdc", amount: 10.5, destination_address: destination, otp },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // The code put the address on the signer's allow-list (no delay here); the approval expires in minutes.
    const listed = await api.signer.clients.api.listPayoutDestinations(owner.merchantId);
    expect(listed).toMatchObject([{ address: destination, mode: "live", linked: false, cancelled: false }]);
    const [row] = await api.db.sql<{ approval: { expires_at_ms: string } }[]>`
      select approval from payouts where id = ${res.body.id}`;
    const ttl = Number(row!.approval.expires_at_ms) - Date.now();
    expect(ttl).toBeGreaterThan(500_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(res.body).toMatchObject({
      object: "payout",
      status: "pending",
      amount: "10.50",
      network_fee: "0.30",
      net_amount: "10.20",
      coin: "USDC",
      chain: "solana",
      destination,
      transaction_hash: null,
      kind: "manual",
      mode: "live",
      is_test: false,
    });
    expect(res.body.id).toMatch(/^po_/);
    // The same Idempotency-Key replays the answer and creates nothing more.
    const replay = await call(api.baseUrl, "POST", "/payouts", {
      headers: { ...owner.auth, "idempotency-key": "po-1" },
      body: { chain: "solana", coin_symbol: "usdc", amount: 10.5, destination_address: destination, otp },
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(res.body.id);
    const after = await context(owner);
    expect(after.total_available).toBe(14.5);
    expect(after.balances[0]).toMatchObject({ available: 14.5, pending: 10.5 });
    const list = await call(api.baseUrl, "GET", "/payouts", { headers: owner.auth });
    expect(list.body).toMatchObject({ object: "list", has_more: false });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([res.body.id]);
    const one = await call(api.baseUrl, "GET", `/payouts/${res.body.id}`, { headers: owner.auth });
    expect(one.body.id).toBe(res.body.id);
    await expectLedgerSound();
  });

  it("defaults to the linked payout wallet and pages newest first", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const wallet = suiAddress();
    await api.db
      .sql`insert into payout_wallets (merchant_id, chain, address) values (${owner.merchantId}, 'sui', ${wallet})`;
    await fund(owner, 9_000_000n, { chain: "sui", mode: "test" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const otp = await requestOtp(owner, { mode: "test" });
      const res = await call(api.baseUrl, "POST", "/payouts", {
        headers: owner.auth,
        body: { chain: "sui", coin_symbol: "USDC", amount: 1, otp, mode: "test" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        destination: wallet,
        is_test: true,
        simulated: true,
        network_fee: "0.05",
      });
      ids.push(res.body.id);
    }
    const first = await call(api.baseUrl, "GET", "/payouts?mode=test&limit=2", { headers: owner.auth });
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const next = await call(api.baseUrl, "GET", `/payouts?mode=test&limit=2&starting_after=${ids[1]}`, {
      headers: owner.auth,
    });
    expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(next.body.has_more).toBe(false);
    const live = await call(api.baseUrl, "GET", "/payouts", { headers: owner.auth });
    expect(live.body.data).toEqual([]);
    expect((await context(owner, "test")).balances[1]).toMatchObject({
      chain: "sui",
      available: 6,
      pending: 3,
    });
  });

  it("sets the daily schedule", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const res = await call(api.baseUrl, "PUT", "/payouts/schedule", {
      headers: owner.auth,
      body: { hour: 7, enabled: true, minimum_amount: 5 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      object: "payout_schedule",
      mode: "live",
      hour: 7,
      enabled: true,
      minimum_amount: "5.00",
    });
    expect(new Date(res.body.next_run_at).getUTCHours()).toBe(7);
    const bad = await call(api.baseUrl, "PUT", "/payouts/schedule", {
      headers: owner.auth,
      body: { hour: 24 },
    });
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "hour" });
    expect((await context(owner)).schedule).toMatchObject({ hour: 7 });
  });
});

describe("payouts: errors", () => {
  it("takes the chain of a destination without one from the chain registry's address rules", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    for (const [chain, address] of [
      ["sui", suiAddress()],
      ["solana", solanaAddress()],
    ] as const) {
      const res = await call(api.baseUrl, "POST", "/payouts/request-otp", {
        headers: owner.auth,
        body: { destination_address: address },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ chain, destination_address: address });
    }
  });

  it("validates the request and needs a destination before issuing a code", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const none = await call(api.baseUrl, "POST", "/payouts/request-otp", { headers: owner.auth, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: "destination_required" });
    const badAddress = await call(api.baseUrl, "POST", "/payouts/request-otp", {
      headers: owner.auth,
      body: { chain: "solana", destination_address: suiAddress() },
    });
    expect(badAddress.body.error).toMatchObject({ code: "address_invalid", param: "destination_address" });
    // Without a chain, the chain is the one whose address rules accept the address; none here.
    const noChain = await call(api.baseUrl, "POST", "/payouts/request-otp", {
      headers: owner.auth,
      body: { destination_address: "0x-not-an-address" },
    });
    expect(noChain.body.error).toMatchObject({ code: "address_invalid", param: "destination_address" });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ coin_symbol: "USDC", amount: 1, otp: "123456" }, "parameter_missing", "chain"],
      [{ chain: "solana", coin_symbol: "SOL", amount: 1, otp: "123456" }, "coin_unsupported", "coin_symbol"],
      [{ chain: "solana", coin_symbol: "USDC", amount: -1, otp: "123456" }, "amount_not_positive", "amount"],
      [
        { chain: "solana", coin_symbol: "USDC", amount: 1.0000001, otp: "123456" },
        "amount_too_precise",
        "amount",
      ],
      [{ chain: "solana", coin_symbol: "USDC", amount: 1 }, "parameter_missing", "otp"],
      [{ chain: "solana", coin_symbol: "USDC", amount: 1, otp: "1", extra: 1 }, "parameter_unknown", "extra"],
      [{ chain: "btc", coin_symbol: "USDC", amount: 1, otp: "123456" }, "chain_unsupported", "chain"],
      [
        {
          chain: "solana",
          coin_symbol: "USDC",
          amount: 0.3,
          otp: "123456",
          destination_address: solanaAddress(),
        },
        "amount_too_small",
        "amount",
      ],
    ];
    for (const [body, code, param] of cases) {
      const res = await call(api.baseUrl, "POST", "/payouts", { headers: owner.auth, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
  });

  it("refuses an amount above the available balance without spending the code", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 2_000_000n);
    const destination = solanaAddress();
    const otp = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const body = { chain: "solana", coin_symbol: "USDC", destination_address: destination, otp };
    const over = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, amount: 2.01 },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: "insufficient_balance", param: "amount" });
    const usdt = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, coin_symbol: "USDT", amount: 1 },
    });
    expect(usdt.body.error).toMatchObject({ code: "insufficient_balance" });
    const test = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, amount: 1, mode: "test" },
    });
    expect(test.body.error).toMatchObject({ code: "insufficient_balance" });
    const ok = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, amount: 2 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe("payouts: security", () => {
  it("takes the session JWT only: API keys are refused, even beside a token", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const merchant = await createTestMerchant(api.db.sql);
    for (const [method, path] of [
      ["GET", "/payouts/context"],
      ["GET", "/payouts"],
      ["POST", "/payouts"],
      ["POST", "/payouts/request-otp"],
      ["PUT", "/payouts/schedule"],
    ] as const) {
      const body = method === "GET" ? {} : { body: {} };
      const keyOnly = await call(api.baseUrl, method, path, {
        headers: { "x-api-key": merchant.liveKey },
        ...body,
      });
      expect(keyOnly.status, `${method} ${path}`).toBe(401);
      const both = await call(api.baseUrl, method, path, {
        headers: { ...owner.auth, "x-api-key": merchant.liveKey },
        ...body,
      });
      expect(both.status, `${method} ${path}`).toBe(401);
      const none = await call(api.baseUrl, method, path, body);
      expect(none.body.error.code).toBe("token_missing");
    }
  });

  it("hides other merchants' payouts and balances", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    const other = await createTestAccount(api.baseUrl, catcher);
    await fund(other, 5_000_000n);
    const destination = solanaAddress();
    const otp = await requestOtp(other, { chain: "solana", destination_address: destination });
    const theirs = await call(api.baseUrl, "POST", "/payouts", {
      headers: other.auth,
      body: { chain: "solana", coin_symbol: "USDC", amount: 1, destination_address: destination, otp },
    });
    expect(theirs.status).toBe(201);
    const read = await call(api.baseUrl, "GET", `/payouts/${theirs.body.id}`, { headers: owner.auth });
    expect(read.status).toBe(404);
    const page = await call(api.baseUrl, "GET", `/payouts?starting_after=${theirs.body.id}`, {
      headers: owner.auth,
    });
    expect(page.status).toBe(404);
    expect((await call(api.baseUrl, "GET", "/payouts", { headers: owner.auth })).body.data).toEqual([]);
    expect((await context(owner)).total_available).toBe(0);
  });

  it("binds the code to its destination, chain and mode; it works once", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 5_000_000n);
    const destination = solanaAddress();
    const otp = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const body = { chain: "solana", coin_symbol: "USDC", amount: 1, destination_address: destination, otp };
    const elsewhere = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, destination_address: solanaAddress() },
    });
    expect(elsewhere.body.error).toMatchObject({ code: "code_invalid", param: "otp" });
    const testMode = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, mode: "test" },
    });
    expect(testMode.body.error.code).toMatch(/code_invalid|insufficient_balance/);
    const ok = await call(api.baseUrl, "POST", "/payouts", { headers: owner.auth, body });
    expect(ok.status).toBe(201);
    const reused = await call(api.baseUrl, "POST", "/payouts", { headers: owner.auth, body });
    expect(reused.body.error).toMatchObject({ code: "code_invalid" });
  });

  it("keeps one live code: a new code voids the previous one", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 5_000_000n);
    const destination = solanaAddress();
    const first = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const second = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const body = { chain: "solana", coin_symbol: "USDC", amount: 1, destination_address: destination };
    if (first !== second) {
      const old = await call(api.baseUrl, "POST", "/payouts", {
        headers: owner.auth,
        body: { ...body, otp: first },
      });
      expect(old.body.error).toMatchObject({ code: "code_invalid" });
    }
    const ok = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, otp: second },
    });
    expect(ok.status).toBe(201);
  });

  it("voids the code after 5 wrong tries, refuses expired codes, and stores no code", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 5_000_000n);
    const destination = solanaAddress();
    const otp = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const dump = JSON.stringify(
      await api.db.sql`select * from email_codes where merchant_id = ${owner.merchantId}`,
      (_k, v) => (Buffer.isBuffer(v) ? v.toString("hex") : v),
    );
    expect(dump).not.toContain(otp);
    const body = { chain: "solana", coin_symbol: "USDC", amount: 1, destination_address: destination };
    for (let i = 0; i < PAYOUT_CODE_MAX_ATTEMPTS; i++) {
      const wrong = String((Number(otp) + 1 + i) % 1_000_000).padStart(6, "0");
      const res = await call(api.baseUrl, "POST", "/payouts", {
        headers: owner.auth,
        body: { ...body, otp: wrong },
      });
      expect(res.body.error.code).toBe("code_invalid");
    }
    const right = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, otp },
    });
    expect(right.body.error).toMatchObject({ code: "code_invalid" });

    const fresh = await requestOtp(owner, { chain: "solana", destination_address: destination });
    await api.db.sql`update email_codes set expires_at = now() - interval '1 second'
      where merchant_id = ${owner.merchantId} and purpose = 'payout'`;
    const expired = await call(api.baseUrl, "POST", "/payouts", {
      headers: owner.auth,
      body: { ...body, otp: fresh },
    });
    expect(expired.body.error).toMatchObject({ code: "code_invalid" });
    expect((await context(owner)).total_available).toBe(5);
  });

  it("20 concurrent requests with one code make one payout and never overdraw", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await fund(owner, 10_000_000n);
    const destination = solanaAddress();
    // A merchant has one live code, so concurrent requests share it: exactly one may spend it.
    // Twenty reservations racing on one balance below the API: packages/ledger's tests.
    const otp = await requestOtp(owner, { chain: "solana", destination_address: destination });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(api.baseUrl, "POST", "/payouts", {
          headers: owner.auth,
          body: { chain: "solana", coin_symbol: "USDC", amount: 6, destination_address: destination, otp },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const ctx = await context(owner);
    expect(ctx.balances[0]).toMatchObject({ available: 4, pending: 6 });
    await expectLedgerSound();
  });
});
