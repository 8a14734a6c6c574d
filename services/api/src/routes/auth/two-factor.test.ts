import { randomBytes } from "node:crypto";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount, fromIp, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { totpNow } from "../../../test/totp.js";

let api: TestApi;
let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
});
afterAll(async () => {
  await api.close();
  await catcher.close();
});

/** A fresh account from its own address, so no test's throttle counts another's tries. */
async function freshAccount() {
  const ip = `10.42.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const account = await createTestAccount(api.baseUrl, catcher, { ip });
  const headers = fromIp(ip);
  const post = (path: string, body: unknown, auth: Record<string, string> = account.auth) =>
    call(api.baseUrl, "POST", path, { body, headers: { ...headers, ...auth } });
  return { account, headers, post };
}

/** Sets up and enables the authenticator app with the code `steps` away from now. */
async function enableTotp(post: Awaited<ReturnType<typeof freshAccount>>["post"], steps = 0) {
  const setup = await post("/auth/2fa/setup", {});
  expect(setup.status).toBe(200);
  const secret = setup.body.secret as string;
  const enabled = await post("/auth/2fa/enable", { code: totpNow(secret, steps) });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  return { secret, recoveryCodes: enabled.body.recovery_codes as string[] };
}

async function firstStep(account: TestAccount, headers: Record<string, string>) {
  const login = await call(api.baseUrl, "POST", "/auth/login", {
    body: { email: account.email, password: account.password },
    headers,
  });
  expect(login.status).toBe(200);
  return login.body as {
    two_factor_required?: boolean;
    login_token: string;
    methods: string[];
    token?: string;
  };
}

describe("authenticator app (RFC 6238 codes computed without otplib)", () => {
  it("sets up with a secret, an otpauth URL and a QR code, and enables with one code", async () => {
    const { post } = await freshAccount();
    const setup = await post("/auth/2fa/setup", {});
    expect(setup.body.secret).toMatch(/^[A-Z2-7]+$/);
    expect(setup.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Gateway:/);
    expect(setup.body.otpauth_url).toContain(`secret=${setup.body.secret}`);
    const rows = setup.body.qr_modules as string[];
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.every((r) => r.length === rows.length && /^[01]+$/.test(r))).toBe(true);
    const wrong = await post("/auth/2fa/enable", {
      code: "000000" === totpNow(setup.body.secret) ? "111111" : "000000",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({
      type: "invalid_request_error",
      code: "code_invalid",
      param: "code",
    });
    const enabled = await post("/auth/2fa/enable", { code: totpNow(setup.body.secret) });
    expect(enabled.status).toBe(200);
    expect(enabled.body.recovery_codes).toHaveLength(10);
    expect(new Set(enabled.body.recovery_codes).size).toBe(10);
    const again = await post("/auth/2fa/setup", {});
    expect(again.status).toBe(409);
  });

  it("makes login two steps, tolerates one step of skew and refuses a replay within the window", async () => {
    const { account, headers, post } = await freshAccount();
    // Enabled with the previous window's code: one step behind is accepted.
    const { secret } = await enableTotp(post, -1);
    const step = await firstStep(account, headers);
    expect(step).toEqual({
      two_factor_required: true,
      login_token: expect.any(String),
      methods: ["totp", "recovery_code"],
    });
    expect(step.token).toBeUndefined();
    const second = (code: string, token = step.login_token) =>
      post("/auth/login/2fa", { login_token: token, code }, {});
    // The code that enabled the app is spent: its replay is refused.
    const replayed = await second(totpNow(secret, -1));
    expect(replayed.status).toBe(400);
    expect(replayed.body.error.code).toBe("code_invalid");
    const now = await second(totpNow(secret));
    expect(now.status).toBe(200);
    expect(now.body.token).toEqual(expect.any(String));
    // The login token is spent with it, and the same code under a new token is a replay.
    expect((await second(totpNow(secret, 1))).body.error.code).toBe("login_token_invalid");
    const next = await firstStep(account, headers);
    expect((await second(totpNow(secret), next.login_token)).status).toBe(400);
    // One step ahead (a fast phone clock) is accepted; two steps ahead is not.
    expect((await second(totpNow(secret, 1), next.login_token)).status).toBe(200);
    const later = await firstStep(account, headers);
    expect((await second(totpNow(secret, 2), later.login_token)).status).toBe(400);
    const session = { authorization: `Bearer ${now.body.token}` };
    expect((await call(api.baseUrl, "GET", "/auth/me", { headers: session })).body.member.totp).toBe(true);
  });

  it("accepts each recovery code once, and a forged login token never", async () => {
    const { account, headers, post } = await freshAccount();
    const { recoveryCodes } = await enableTotp(post);
    const step = await firstStep(account, headers);
    const used = await post("/auth/login/2fa", { login_token: step.login_token, code: recoveryCodes[3] }, {});
    expect(used.status).toBe(200);
    const again = await firstStep(account, headers);
    const reused = await post(
      "/auth/login/2fa",
      { login_token: again.login_token, code: recoveryCodes[3] },
      {},
    );
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe("code_invalid");
    const other = await post(
      "/auth/login/2fa",
      { login_token: again.login_token, code: recoveryCodes[4]!.toUpperCase() },
      {},
    );
    expect(other.status).toBe(200);
    const forged = await post("/auth/login/2fa", { login_token: "lt_forged", code: recoveryCodes[5] }, {});
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ type: "authentication_error", code: "login_token_invalid" });
    const audit = await call(api.baseUrl, "GET", "/audit-log", { headers: { ...headers, ...account.auth } });
    const actions = audit.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(["totp.enabled", "recovery_code.used", "login.succeeded", "login.failed"]),
    );
  });

  it("turns off only with a second factor, and ends the member's other sessions when it changes", async () => {
    const { account, headers, post } = await freshAccount();
    const other = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: account.password },
      headers,
    });
    const otherAuth = { authorization: `Bearer ${other.body.token}` };
    expect((await call(api.baseUrl, "GET", "/auth/me", { headers: otherAuth })).status).toBe(200);
    const { secret } = await enableTotp(post);
    // Enabling revoked every session but the one that did it.
    expect((await call(api.baseUrl, "GET", "/auth/me", { headers: otherAuth })).status).toBe(401);
    const refused = await post("/auth/2fa/disable", { code: "not-a-code" });
    expect(refused.status).toBe(400);
    const off = await post("/auth/2fa/disable", { code: totpNow(secret, 1) });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ object: "second_factors", totp: false, passkeys: 0 });
    const login = await firstStep(account, headers);
    expect(login.token).toEqual(expect.any(String));
    const owners = await catcher.waitForMail({ to: account.email, subject: "second factor" });
    expect(owners.text).toContain(account.email);
  });

  it("throttles wrong codes: past the budget every try is 429 with Retry-After", async () => {
    const { account, headers, post } = await freshAccount();
    await enableTotp(post);
    const step = await firstStep(account, headers);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 12; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/login/2fa", {
        body: { login_token: step.login_token, code: String(100000 + i) },
        headers,
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.error.code).toBe("too_many_attempts");
        retryAfter = res.headers.get("retry-after");
      }
    }
    // One try went to enabling the app: nine wrong codes are 400, then the budget is spent.
    expect(statuses.slice(0, 9)).toEqual(Array(9).fill(400));
    expect(statuses.slice(9)).toEqual([429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
