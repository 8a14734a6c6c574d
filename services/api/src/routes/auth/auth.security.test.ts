import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, fromIp } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { CODE_MAX_ATTEMPTS } from "./email-codes.js";
import { LIMITS } from "./throttle.js";

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

const SECRET = new TextEncoder().encode("test-secret-test-secret-test-secret-0123");

function wrongCode(code: string, i: number): string {
  const n = (Number(code) + 1 + i) % 1_000_000;
  return String(n).padStart(6, "0");
}

describe("session tokens", () => {
  it("refuses a missing, malformed, forged, expired or foreign token with 401", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const claims = (token: SignJWT) =>
      token.setProtectedHeader({ alg: "HS256" }).setSubject(account.merchantId).setIssuer("gateway");
    const forged = await claims(new SignJWT({}))
      .setAudience("gateway-dashboard")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("some-other-secret-some-other-secret-0"));
    const expired = await claims(new SignJWT({}))
      .setAudience("gateway-dashboard")
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(SECRET);
    const otherAudience = await claims(new SignJWT({}))
      .setAudience("elsewhere")
      .setExpirationTime("1h")
      .sign(SECRET);
    const [header, payload] = account.token.split(".");
    const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    const tampered = `${header}.${Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload!, "base64url").toString()),
        sub: "mer_someoneelse",
      }),
    ).toString("base64url")}.${account.token.split(".")[2]}`;

    const cases: [string, Record<string, string>, string][] = [
      ["missing", {}, "token_missing"],
      ["not bearer", { authorization: `Basic ${account.token}` }, "token_invalid"],
      ["forged", { authorization: `Bearer ${forged}` }, "token_invalid"],
      ["expired", { authorization: `Bearer ${expired}` }, "token_invalid"],
      ["other audience", { authorization: `Bearer ${otherAudience}` }, "token_invalid"],
      ["alg none", { authorization: `Bearer ${unsigned}` }, "token_invalid"],
      ["tampered subject", { authorization: `Bearer ${tampered}` }, "token_invalid"],
    ];
    for (const [name, headers, code] of cases) {
      for (const path of ["/auth/me", "/api-keys", "/payout-wallets", "/dashboard/api/payments"]) {
        const res = await call(api.baseUrl, "GET", path, { headers });
        expect(res.status, `${name} ${path}`).toBe(401);
        expect(res.body.error.code, `${name} ${path}`).toBe(code);
      }
    }
    expect((await call(api.baseUrl, "GET", "/auth/me", { headers: account.auth })).status).toBe(200);
  });
});

describe("brute force", () => {
  it("voids a verification code after 5 wrong tries, even for the right code", async () => {
    const email = "guess@example.com";
    const headers = fromIp("10.2.0.1");
    await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email, password: "a long enough password", business_name: "G" },
      headers,
    });
    const code = codeIn((await catcher.waitForMail({ to: email })).subject);
    for (let i = 0; i < CODE_MAX_ATTEMPTS; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/verify-email", {
        body: { email, code: wrongCode(code, i) },
        headers,
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("code_invalid");
    }
    const right = await call(api.baseUrl, "POST", "/auth/verify-email", { body: { email, code }, headers });
    expect(right.status).toBe(400);
    expect(right.body.error.code).toBe("code_invalid");
  });

  it("refuses an expired code", async () => {
    const email = "slow@example.com";
    const headers = fromIp("10.2.0.2");
    await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email, password: "a long enough password", business_name: "S" },
      headers,
    });
    const code = codeIn((await catcher.waitForMail({ to: email })).subject);
    await api.db.sql`update email_codes set expires_at = now() - interval '1 second'
      where merchant_id = (select id from merchants where email = ${email})`;
    const res = await call(api.baseUrl, "POST", "/auth/verify-email", { body: { email, code }, headers });
    expect(res.body.error.code).toBe("code_invalid");
  });

  it("stops password guessing on one account, even from many addresses", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const { limit } = LIMITS.loginPerAccount;
    // createTestAccount's own login counted as one attempt.
    for (let i = 0; i < limit - 1; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: account.email, password: `guess number ${i}` },
        headers: fromIp(`10.3.${i}.1`),
      });
      expect(res.status).toBe(401);
    }
    const blocked = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: account.password },
      headers: fromIp("10.3.200.1"),
    });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe("too_many_attempts");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("stops one address guessing across many accounts", async () => {
    const headers = fromIp("10.4.0.1");
    const { limit } = LIMITS.loginPerIp;
    let refused = 0;
    for (let i = 0; i < limit + 1; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: `victim${i}@example.com`, password: "password guess" },
        headers,
      });
      if (res.status === 429) refused++;
    }
    expect(refused).toBe(1);
  });

  it("stops code guessing per account across addresses and limits mail per address", async () => {
    const email = "spam@example.com";
    const { limit } = LIMITS.mailPerAccount;
    const statuses: number[] = [];
    for (let i = 0; i < limit + 1; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/signup", {
        body: { email, password: "a long enough password", business_name: "S" },
        headers: fromIp(`10.5.${i}.1`),
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, limit).every((s) => s === 201)).toBe(true);
    expect(statuses[limit]).toBe(429);

    const verifyLimit = LIMITS.verifyPerAccount.limit;
    const verifies: number[] = [];
    for (let i = 0; i < verifyLimit + 1; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/verify-email", {
        body: { email, code: "000000" },
        headers: fromIp(`10.6.${i}.1`),
      });
      verifies.push(res.status);
    }
    expect(verifies[verifyLimit]).toBe(429);
  });
});
