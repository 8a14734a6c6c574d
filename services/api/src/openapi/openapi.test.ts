import { randomBytes, randomUUID } from "node:crypto";
import { creditPayment } from "@gateway/ledger";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { codeIn, createTestAccount, fromIp } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { totpNow } from "../../test/totp.js";
import { MOUNTED } from "../http/operation.js";
import { OPERATIONS } from "./operations.js";

let api: TestApi;
let catcher: MailCatcher;
let merchant: TestMerchant;
let settlement: Settlement;
let doc: any;
let ajv: Ajv2020;
/** `METHOD path` of every operation a real answer was checked for. */
const checked = new Set<string>();

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  merchant = await createTestMerchant(api.db.sql);
  settlement = await startTestSettlement(api);
  doc = (await call(api.baseUrl, "GET", "/openapi.json")).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
  await catcher?.close();
});

/** Checks a real response against the document: its status is declared and its body matches. */
function conforms(path: string, method: string, res: { status: number; headers?: Headers; body: unknown }) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const response = operation.responses[String(res.status)];
  expect(response, `${method} ${path} documents status ${res.status}`).toBeDefined();
  if (!response.content["application/json"]) {
    // Not JSON (an event stream): the media type it declares is the one served.
    const [mediaType] = Object.keys(response.content);
    expect(res.headers?.get("content-type")?.split(";")[0], `${method} ${path} ${res.status}`).toBe(
      mediaType,
    );
    checked.add(`${method.toUpperCase()} ${path}`);
    return;
  }
  const schema = response.content["application/json"].schema;
  // Inline schemas point into the document's components; make those references absolute.
  const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const validate = ajv.compile(absolute);
  const valid = validate(res.body);
  expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  checked.add(`${method.toUpperCase()} ${path}`);
}

describe("openapi.json", () => {
  it("is an OpenAPI 3.1 document whose every operation has an id and responses", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      }
    }
  });

  it("describes what the payments and checkout endpoints really answer", async () => {
    const headers = { "x-api-key": merchant.testKey };
    const created = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 12.5, currency: "USD", description: "x" },
      headers,
    });
    conforms("/payments", "post", created);
    conforms(
      "/payments",
      "post",
      await call(api.baseUrl, "POST", "/payments", { body: { amount: "abc", currency: "USD" }, headers }),
    );
    conforms(
      "/payments",
      "post",
      await call(api.baseUrl, "POST", "/payments", { body: { amount: 1, currency: "USD" } }),
    );
    conforms("/payments", "get", await call(api.baseUrl, "GET", "/payments?limit=5", { headers }));
    conforms("/payments", "get", await call(api.baseUrl, "GET", "/payments?limit=500", { headers }));
    const id = created.body.id;
    conforms("/payments/{id}", "get", await call(api.baseUrl, "GET", `/payments/${id}`, { headers }));
    conforms(
      "/payments/{id}",
      "get",
      await call(api.baseUrl, "GET", `/payments/${id}`, { headers: { "x-api-key": merchant.liveKey } }),
    );
    conforms("/payments/checkout/{id}", "get", await call(api.baseUrl, "GET", `/payments/checkout/${id}`));
    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    conforms("/payments/checkout/{id}/generate-wallet", "post", wallet);
    conforms(
      "/payments/checkout/{id}/generate-wallet",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
        body: { chain: "btc", coin: "USDC" },
      }),
    );
    conforms(
      "/payments/checkout/{id}/simulate",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome: "overpaid" } }),
    );
    await waitFor(
      async () =>
        (await call(api.baseUrl, "GET", `/payments/${id}`, { headers })).body.status === "completed",
    );
    const completed = await call(api.baseUrl, "GET", `/payments/${id}`, { headers });
    expect(completed.body.refunds).toHaveLength(1);
    conforms("/payments/{id}", "get", completed);
    conforms("/payments/checkout/{id}", "get", await call(api.baseUrl, "GET", `/payments/checkout/${id}`));
    // A completed payment's stream is one notice and its end, so it can be read whole.
    conforms(
      "/payments/checkout/{id}/events",
      "get",
      await call(api.baseUrl, "GET", `/payments/checkout/${id}/events`),
    );
    conforms(
      "/payments/checkout/{id}/events",
      "get",
      await call(api.baseUrl, "GET", "/payments/checkout/00000000-0000-4000-8000-000000000000/events"),
    );
    conforms(
      "/payments/checkout/{id}/simulate",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome: "paid" } }),
    );
    conforms("/healthz", "get", await call(api.baseUrl, "GET", "/healthz"));
    conforms("/readyz", "get", await call(api.baseUrl, "GET", "/readyz"));
    conforms(
      "/payments/checkout/{id}/receipt",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/receipt`, {
        body: { email: "c@example.test" },
      }),
    );
    conforms(
      "/payments/checkout/{id}/receipt",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/receipt`, { body: { email: "nope" } }),
    );
    // Solana Pay: paid on chain in test/e2e/src/solana-pay-live.test.ts; here its other answers.
    conforms("/solana-pay/tx/{id}", "get", await call(api.baseUrl, "GET", `/solana-pay/tx/${id}`));
    for (const account of ["nope", bs58.encode(randomBytes(31))])
      conforms(
        "/solana-pay/tx/{id}",
        "post",
        await call(api.baseUrl, "POST", `/solana-pay/tx/${id}`, { body: { account } }),
      );
    const payer = "11111111111111111111111111111112";
    conforms(
      "/solana-pay/tx/{id}",
      "post",
      await call(api.baseUrl, "POST", `/solana-pay/tx/${id}`, { body: { account: payer } }),
    );
    conforms(
      "/solana-pay/tx/{id}",
      "post",
      await call(api.baseUrl, "POST", `/solana-pay/tx/${randomUUID()}`, { body: { account: payer } }),
    );
  });

  it("describes what the payment link endpoints really answer", async () => {
    const headers = { "x-api-key": merchant.testKey };
    const created = await call(api.baseUrl, "POST", "/payment-links", {
      body: { amount: 10, currency: "USD", description: "x" },
      headers,
    });
    conforms("/payment-links", "post", created);
    conforms(
      "/payment-links",
      "post",
      await call(api.baseUrl, "POST", "/payment-links", { body: { amount: 1, currency: "XYZ" }, headers }),
    );
    await fetch(created.body.url, { redirect: "manual" });
    conforms("/payment-links", "get", await call(api.baseUrl, "GET", "/payment-links", { headers }));
    const path = `/payment-links/${created.body.id}/deactivate`;
    conforms("/payment-links/{id}/deactivate", "post", await call(api.baseUrl, "POST", path, { headers }));
    conforms(
      "/payment-links/{id}/deactivate",
      "post",
      await call(api.baseUrl, "POST", "/payment-links/plink_none/deactivate", { headers }),
    );
    const account = await createTestAccount(api.baseUrl, catcher);
    const mine = await call(api.baseUrl, "POST", "/dashboard/api/payment-links", {
      body: { amount: 2, currency: "USDC", is_test: true },
      headers: account.auth,
    });
    conforms("/dashboard/api/payment-links", "post", mine);
    conforms(
      "/dashboard/api/payment-links",
      "get",
      await call(api.baseUrl, "GET", "/dashboard/api/payment-links?mode=test", { headers: account.auth }),
    );
    conforms(
      "/dashboard/api/payment-links/{id}/deactivate",
      "post",
      await call(api.baseUrl, "POST", `/dashboard/api/payment-links/${mine.body.id}/deactivate`, {
        headers: account.auth,
      }),
    );
  });

  it("describes what the accounts, dashboard and webhook endpoints really answer", async () => {
    const token = await api.deps.sessions.issue(merchant.ownerId);
    const bearer = { authorization: `Bearer ${token}` };
    conforms(
      "/auth/signup",
      "post",
      await call(api.baseUrl, "POST", "/auth/signup", {
        body: { email: "new@example.test", password: "a long enough password", business_name: "New" },
      }),
    );
    conforms(
      "/auth/signup",
      "post",
      await call(api.baseUrl, "POST", "/auth/signup", { body: { email: "not-an-email" } }),
    );
    conforms(
      "/auth/login",
      "post",
      await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: "nobody@example.test", password: "whatever whatever" },
      }),
    );
    conforms("/auth/me", "get", await call(api.baseUrl, "GET", "/auth/me", { headers: bearer }));
    conforms(
      "/auth/me",
      "get",
      await call(api.baseUrl, "GET", "/auth/me", { headers: { authorization: "Bearer nope" } }),
    );
    const keys = await call(api.baseUrl, "POST", "/api-keys", { headers: bearer });
    conforms("/api-keys", "post", keys);
    conforms("/api-keys", "get", await call(api.baseUrl, "GET", "/api-keys", { headers: bearer }));
    conforms(
      "/api-keys/{id}/deactivate",
      "post",
      await call(api.baseUrl, "POST", `/api-keys/${keys.body.id}/deactivate`, { headers: bearer }),
    );
    conforms(
      "/api-keys/{id}/activate",
      "post",
      await call(api.baseUrl, "POST", `/api-keys/${keys.body.id}/activate`, { headers: bearer }),
    );
    conforms(
      "/payout-wallets",
      "get",
      await call(api.baseUrl, "GET", "/payout-wallets", { headers: bearer }),
    );
    conforms(
      "/payout-wallets/{chain}",
      "put",
      await call(api.baseUrl, "PUT", "/payout-wallets/sui", {
        headers: bearer,
        body: { address: "0x1", otp: "123456" },
      }),
    );
    conforms(
      "/dashboard/api/payments",
      "get",
      await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test", { headers: bearer }),
    );
    const headers = { "x-api-key": merchant.testKey };
    const hook = await call(api.baseUrl, "POST", "/webhooks", {
      headers,
      body: { url: "http://127.0.0.1:9/hook", is_test: true },
    });
    conforms("/webhooks", "post", hook);
    conforms(
      "/webhooks",
      "post",
      await call(api.baseUrl, "POST", "/webhooks", { headers, body: { url: "ftp://x" } }),
    );
    conforms("/webhooks", "get", await call(api.baseUrl, "GET", "/webhooks", { headers }));
    conforms(
      "/webhooks/{id}/deliveries",
      "get",
      await call(api.baseUrl, "GET", `/webhooks/${hook.body.id}/deliveries`, { headers }),
    );
    conforms(
      "/webhooks/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", `/webhooks/${hook.body.id}`, { headers }),
    );
  });
  it("describes what the accounts, payout wallet and allow-list endpoints really answer", async () => {
    const email = `o${randomBytes(5).toString("hex")}@example.test`;
    const password = "correct horse battery";
    const ip = fromIp("10.77.0.1");
    conforms(
      "/auth/signup",
      "post",
      await call(api.baseUrl, "POST", "/auth/signup", {
        body: { email, password, business_name: "Openapi" },
        headers: ip,
      }),
    );
    const mail = await catcher.waitForMail({ to: email, subject: "verification code" });
    conforms(
      "/auth/verify-email",
      "post",
      await call(api.baseUrl, "POST", "/auth/verify-email", { body: { email, code: "12" }, headers: ip }),
    );
    conforms(
      "/auth/verify-email",
      "post",
      await call(api.baseUrl, "POST", "/auth/verify-email", {
        body: { email, code: codeIn(mail.subject) },
        headers: ip,
      }),
    );
    const login = await call(api.baseUrl, "POST", "/auth/login", { body: { email, password }, headers: ip });
    expect(login.status).toBe(200);
    conforms("/auth/login", "post", login);
    const h = { headers: { authorization: `Bearer ${login.body.token}` } };
    const address = bs58.encode(randomBytes(32));
    const code = await call(api.baseUrl, "POST", "/payout-wallets/solana/request-code", {
      ...h,
      body: { address },
    });
    conforms("/payout-wallets/{chain}/request-code", "post", code);
    conforms(
      "/payout-wallets/{chain}/request-code",
      "post",
      await call(api.baseUrl, "POST", "/payout-wallets/btc/request-code", { ...h, body: { address } }),
    );
    const walletMail = await catcher.waitForMail({ to: email, subject: "payout wallet code" });
    const linked = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      ...h,
      body: { address, otp: codeIn(walletMail.subject) },
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(200);
    conforms("/payout-wallets/{chain}", "put", linked);
    const destinations = await call(api.baseUrl, "GET", "/payout-destinations?mode=live", h);
    expect(destinations.status, JSON.stringify(destinations.body)).toBe(200);
    conforms("/payout-destinations", "get", destinations);
    conforms(
      "/payout-destinations",
      "get",
      await call(api.baseUrl, "GET", "/payout-destinations?mode=staging", h),
    );
    const cancelled = await call(
      api.baseUrl,
      "DELETE",
      `/payout-destinations/solana/${address}?mode=test`,
      h,
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    conforms("/payout-destinations/{chain}/{address}", "delete", cancelled);
    conforms(
      "/payout-destinations/{chain}/{address}",
      "delete",
      await call(api.baseUrl, "DELETE", `/payout-destinations/solana/${bs58.encode(randomBytes(32))}`, h),
    );
  });

  it("describes what the dashboard's payment and webhook endpoints really answer", async () => {
    const token = await api.deps.sessions.issue(merchant.ownerId);
    const h = { headers: { authorization: `Bearer ${token}` } };
    const payment = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 3, currency: "USDC" },
      headers: { "x-api-key": merchant.liveKey },
    });
    conforms(
      "/dashboard/api/payments/{id}",
      "get",
      await call(api.baseUrl, "GET", `/dashboard/api/payments/${payment.body.id}`, h),
    );
    conforms(
      "/dashboard/api/payments/{id}",
      "get",
      await call(api.baseUrl, "GET", `/dashboard/api/payments/${randomUUID()}`, h),
    );
    const hook = await call(api.baseUrl, "POST", "/dashboard/api/webhooks", {
      ...h,
      body: { url: "http://127.0.0.1:9/dash", is_test: true, events: ["payment.completed"] },
    });
    conforms("/dashboard/api/webhooks", "post", hook);
    conforms(
      "/dashboard/api/webhooks",
      "post",
      await call(api.baseUrl, "POST", "/dashboard/api/webhooks", {
        ...h,
        body: { url: "http://127.0.0.1:9/x" },
      }),
    );
    conforms(
      "/dashboard/api/webhooks",
      "get",
      await call(api.baseUrl, "GET", "/dashboard/api/webhooks?mode=test", h),
    );
    const id = hook.body.id;
    conforms(
      "/dashboard/api/webhooks/{id}/deliveries",
      "get",
      await call(api.baseUrl, "GET", `/dashboard/api/webhooks/${id}/deliveries?limit=5`, h),
    );
    conforms(
      "/dashboard/api/webhooks/{id}/redeliver",
      "post",
      await call(api.baseUrl, "POST", `/dashboard/api/webhooks/${id}/redeliver`, {
        ...h,
        body: { event_id: "evt_missing" },
      }),
    );
    conforms(
      "/webhooks/{id}/redeliver",
      "post",
      await call(api.baseUrl, "POST", `/webhooks/${id}/redeliver`, {
        headers: { "x-api-key": merchant.testKey },
        body: { event_id: "evt_missing" },
      }),
    );
    conforms(
      "/dashboard/api/webhook-deliveries",
      "get",
      await call(api.baseUrl, "GET", `/dashboard/api/webhook-deliveries?payment_id=${payment.body.id}`, h),
    );
    conforms(
      "/dashboard/api/webhooks/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", `/dashboard/api/webhooks/${id}`, h),
    );
  });

  it("describes what the payout endpoints really answer", async () => {
    const owner = await createTestAccount(api.baseUrl, catcher);
    await api.db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "live",
        chain: "solana",
        coin: "USDC",
        paymentId: randomUUID(),
        merchantId: owner.merchantId,
        gross: 5_100_000n,
        fee: 100_000n,
        net: 5_000_000n,
      }),
    );
    const h = { headers: owner.auth };
    const schedule = await call(api.baseUrl, "PUT", "/payouts/schedule", { ...h, body: { hour: 3 } });
    conforms("/payouts/schedule", "put", schedule);
    conforms("/payouts/schedule", "get", await call(api.baseUrl, "GET", "/payouts/schedule", h));
    conforms("/payouts/context", "get", await call(api.baseUrl, "GET", "/payouts/context", h));
    const destination = bs58.encode(randomBytes(32));
    const otp = await call(api.baseUrl, "POST", "/payouts/request-otp", {
      ...h,
      body: { chain: "solana", destination_address: destination, mode: "test" },
    });
    conforms("/payouts/request-otp", "post", otp);
    const mail = await catcher.waitForMail({ to: owner.email, subject: "payout code" });
    const body = { chain: "solana", coin_symbol: "USDC", amount: 2, destination_address: destination };
    await api.db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "test",
        chain: "solana",
        coin: "USDC",
        paymentId: randomUUID(),
        merchantId: owner.merchantId,
        gross: 5_100_000n,
        fee: 100_000n,
        net: 5_000_000n,
      }),
    );
    const created = await call(api.baseUrl, "POST", "/payouts", {
      ...h,
      body: { ...body, mode: "test", otp: codeIn(mail.subject) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    conforms("/payouts", "post", created);
    conforms(
      "/payouts",
      "post",
      await call(api.baseUrl, "POST", "/payouts", { ...h, body: { ...body, otp: "000000" } }),
    );
    conforms("/payouts", "get", await call(api.baseUrl, "GET", "/payouts?mode=test", h));
    conforms("/payouts/{id}", "get", await call(api.baseUrl, "GET", `/payouts/${created.body.id}`, h));
    conforms("/payouts/{id}", "get", await call(api.baseUrl, "GET", "/payouts/po_nope", h));
    conforms("/payouts", "get", await call(api.baseUrl, "GET", "/payouts", {}));
  });

  it("describes what the team, second-factor, session and audit endpoints really answer", async () => {
    const ip = "10.77.0.1";
    const account = await createTestAccount(api.baseUrl, catcher, { ip });
    const h = { headers: { ...fromIp(ip), ...account.auth } };
    const post = (path: string, body: unknown) => call(api.baseUrl, "POST", path, { ...h, body });
    const setup = await post("/auth/2fa/setup", {});
    conforms("/auth/2fa/setup", "post", setup);
    conforms("/auth/2fa/enable", "post", await post("/auth/2fa/enable", { code: "x" }));
    const enabled = await post("/auth/2fa/enable", { code: totpNow(setup.body.secret) });
    conforms("/auth/2fa/enable", "post", enabled);
    const login = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: account.password },
      headers: fromIp(ip),
    });
    conforms("/auth/login", "post", login);
    const second = (code: string) =>
      call(api.baseUrl, "POST", "/auth/login/2fa", {
        body: { login_token: login.body.login_token, code },
        headers: fromIp(ip),
      });
    conforms("/auth/login/2fa", "post", await second("000000"));
    conforms("/auth/login/2fa", "post", await second(enabled.body.recovery_codes[0]));
    conforms("/auth/login/2fa", "post", await second(enabled.body.recovery_codes[1]));
    conforms("/auth/passkeys/register/options", "post", await post("/auth/passkeys/register/options", {}));
    conforms(
      "/auth/passkeys/register",
      "post",
      await post("/auth/passkeys/register", { response: { id: "x", response: {} }, name: "Key" }),
    );
    conforms("/auth/passkeys", "get", await call(api.baseUrl, "GET", "/auth/passkeys", h));
    conforms(
      "/auth/passkeys/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", "/auth/passkeys/pk_nope", {
        ...h,
        body: { code: enabled.body.recovery_codes[3] },
      }),
    );
    conforms(
      "/auth/login/passkey/options",
      "post",
      await call(api.baseUrl, "POST", "/auth/login/passkey/options", { body: { login_token: "lt_nope" } }),
    );
    conforms(
      "/auth/login/passkey",
      "post",
      await call(api.baseUrl, "POST", "/auth/login/passkey", {
        body: { login_token: "lt_nope", response: {} },
      }),
    );
    conforms("/auth/2fa/disable", "post", await post("/auth/2fa/disable", { code: "nope" }));
    conforms(
      "/auth/2fa/disable",
      "post",
      await post("/auth/2fa/disable", { code: enabled.body.recovery_codes[2] }),
    );
    conforms(
      "/auth/password",
      "post",
      await post("/auth/password", { current_password: "x", new_password: "y" }),
    );
    conforms(
      "/auth/password",
      "post",
      await post("/auth/password", { current_password: account.password, new_password: account.password }),
    );
    conforms("/team", "get", await call(api.baseUrl, "GET", "/team", h));
    const email = `inv${randomBytes(4).toString("hex")}@example.test`;
    conforms("/team/invitations", "post", await post("/team/invitations", { email, role: "developer" }));
    conforms(
      "/team/invitations",
      "post",
      await post("/team/invitations", { email: account.email, role: "admin" }),
    );
    const mail = await catcher.waitForMail({ to: email, subject: "invitation code" });
    const accept = (code: string) =>
      call(api.baseUrl, "POST", "/auth/accept-invitation", {
        body: { email, code, password: "a long enough password" },
        headers: fromIp(ip),
      });
    conforms(
      "/auth/accept-invitation",
      "post",
      await accept("999999" === codeIn(mail.subject) ? "999998" : "999999"),
    );
    const joined = await accept(codeIn(mail.subject));
    conforms("/auth/accept-invitation", "post", joined);
    const member = (
      await call(api.baseUrl, "GET", "/auth/me", {
        headers: { authorization: `Bearer ${joined.body.token}` },
      })
    ).body.member;
    const put = (path: string, body: unknown) => call(api.baseUrl, "PUT", path, { ...h, body });
    conforms("/team/members/{id}", "put", await put(`/team/members/${member.id}`, { role: "viewer" }));
    conforms("/team/members/{id}", "put", await put(`/team/members/usr_nope`, { role: "viewer" }));
    conforms(
      "/team/members/{id}",
      "put",
      await put(`/team/members/${account.merchantId.replace("mer_", "usr_")}`, { role: "viewer" }),
    );
    conforms(
      "/team/members/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", `/team/members/${member.id}`, h),
    );
    conforms(
      "/team/members/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", `/team/members/${member.id}`, h),
    );
    conforms("/team/settings", "put", await put("/team/settings", { require_2fa: false }));
    conforms("/team/settings", "put", await put("/team/settings", { require_2fa: "yes" }));
    await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: account.password },
      headers: fromIp(ip),
    });
    const sessions = await call(api.baseUrl, "GET", "/sessions", h);
    conforms("/sessions", "get", sessions);
    conforms("/sessions/{id}", "delete", await call(api.baseUrl, "DELETE", "/sessions/ses_nope", h));
    const other = sessions.body.data.find((s: { current: boolean }) => !s.current);
    conforms("/sessions/{id}", "delete", await call(api.baseUrl, "DELETE", `/sessions/${other.id}`, h));
    const log = await call(api.baseUrl, "GET", "/audit-log?limit=2", h);
    conforms("/audit-log", "get", log);
    conforms("/audit-log", "get", await call(api.baseUrl, "GET", "/audit-log?starting_after=aud_nope", h));
    conforms(
      "/audit-log",
      "get",
      await call(api.baseUrl, "GET", "/audit-log", {
        headers: { authorization: `Bearer ${joined.body.token}` },
      }),
    );
  });

  it("describes what the developer tools' endpoints really answer", async () => {
    const token = await api.deps.sessions.issue(merchant.ownerId);
    const h = { headers: { authorization: `Bearer ${token}` } };
    const key = { headers: { "x-api-key": merchant.testKey } };
    const hook = await call(api.baseUrl, "POST", "/webhooks", {
      ...key,
      body: { url: "http://127.0.0.1:9/devtools" },
    });
    const test = await call(api.baseUrl, "POST", `/webhooks/${hook.body.id}/test`, { ...key, body: {} });
    conforms("/webhooks/{id}/test", "post", test);
    conforms(
      "/webhooks/{id}/test",
      "post",
      await call(api.baseUrl, "POST", "/webhooks/whk_missing/test", { ...key, body: {} }),
    );
    conforms(
      "/dashboard/api/webhooks/{id}/test",
      "post",
      await call(api.baseUrl, "POST", `/dashboard/api/webhooks/${hook.body.id}/test`, { ...h, body: {} }),
    );
    conforms("/events", "get", await call(api.baseUrl, "GET", "/events?limit=5", key));
    conforms("/events", "get", await call(api.baseUrl, "GET", "/events?type=nope", key));
    conforms("/events/{id}", "get", await call(api.baseUrl, "GET", `/events/${test.body.event_id}`, key));
    conforms("/events/{id}", "get", await call(api.baseUrl, "GET", "/events/evt_missing", key));
    conforms(
      "/dashboard/api/overview",
      "get",
      await call(api.baseUrl, "GET", "/dashboard/api/overview?mode=test", h),
    );
    conforms("/dashboard/api/search", "get", await call(api.baseUrl, "GET", "/dashboard/api/search?q=x", h));
    conforms("/dashboard/api/search", "get", await call(api.baseUrl, "GET", "/dashboard/api/search?q=", h));
    const payment = await call(api.baseUrl, "POST", "/payments", {
      ...key,
      body: { amount: 3, currency: "USDC" },
    });
    const transactions = `/dashboard/api/payments/${payment.body.id}/transactions`;
    conforms(
      "/dashboard/api/payments/{id}/transactions",
      "get",
      await call(api.baseUrl, "GET", transactions, h),
    );
    conforms(
      "/dashboard/api/payments/{id}/transactions",
      "get",
      await call(api.baseUrl, "GET", `/dashboard/api/payments/${randomUUID()}/transactions`, h),
    );
    for (const name of ["payments", "ledger", "payouts"]) {
      const path = `/exports/${name}.csv`;
      conforms(path, "get", await call(api.baseUrl, "GET", path, key));
      conforms(path, "get", await call(api.baseUrl, "GET", `${path}?mode=test`, h));
      conforms(path, "get", await call(api.baseUrl, "GET", `${path}?from=2026-02-30`, key));
      conforms(path, "get", await call(api.baseUrl, "GET", `${path}?mode=live`, key));
    }
  });

  it("lists exactly the operations the app serves", () => {
    expect(MOUNTED.size).toBeGreaterThan(0);
    expect(new Set(OPERATIONS)).toEqual(MOUNTED);
  });

  it("checked a real answer of every operation the document lists", () => {
    const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.filter((op) => !checked.has(op))).toEqual([]);
  });
});
