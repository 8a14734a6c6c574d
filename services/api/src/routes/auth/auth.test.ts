import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, fromIp } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

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

const password = "a long enough password";

describe("sign-up, verification and login", () => {
  it("signs up, mails a 6-digit code, verifies, logs in and says who is signed in", async () => {
    const headers = fromIp("10.1.0.1");
    const signup = await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email: " Alice@Example.COM ", password, business_name: " Alice's Shop " },
      headers,
    });
    expect(signup.status).toBe(201);
    expect(signup.body).toEqual({ object: "signup", email: "alice@example.com", verification: "code_sent" });
    const mail = await catcher.waitForMail({ to: "alice@example.com" });
    const code = codeIn(mail.subject);
    expect(mail.text).toContain(code);

    const early = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: "alice@example.com", password },
      headers,
    });
    expect(early.status).toBe(403);
    expect(early.body.error.code).toBe("email_not_verified");

    const verify = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email: "ALICE@example.com", code },
      headers,
    });
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ object: "email_verification", email: "alice@example.com", verified: true });

    const again = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email: "alice@example.com", code },
      headers,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: "code_invalid", param: "code" });

    const login = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: "alice@example.com", password },
      headers,
    });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body)).toEqual(["token"]);
    const me = await call(api.baseUrl, "GET", "/auth/me", {
      headers: { authorization: `Bearer ${login.body.token}` },
    });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      object: "merchant",
      email: "alice@example.com",
      business_name: "Alice's Shop",
    });
    expect(me.body.id).toMatch(/^mer_/);
  });

  it("stores the password as an argon2id hash, never in clear", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const [row] = await api.db.sql<{ password_hash: string }[]>`
      select password_hash from users where merchant_id = ${account.merchantId}`;
    expect(row!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row!.password_hash).not.toContain(account.password);
    const codes = await api.db.sql`select * from email_codes where merchant_id = ${account.merchantId}`;
    expect(codes).toHaveLength(0);
  });

  it("answers a sign-up for a registered address exactly like a new one, and mails the owner", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const before = catcher.messages({ to: account.email })[0]!.id;
    const signup = await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email: account.email, password: "another password 123", business_name: "Impostor" },
      headers: fromIp("10.1.0.2"),
    });
    expect(signup.status).toBe(201);
    expect(signup.body).toEqual({ object: "signup", email: account.email, verification: "code_sent" });
    const mail = await catcher.waitForMail({ to: account.email, afterId: before });
    expect(mail.subject).toBe("Someone tried to sign up with your e-mail address");
    expect(mail.text).not.toMatch(/\b\d{6}\b/);
    // Nothing changed: the owner's password still works, the impostor's does not.
    const owner = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: account.password },
      headers: fromIp("10.1.0.2"),
    });
    expect(owner.status).toBe(200);
    const impostor = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: "another password 123" },
      headers: fromIp("10.1.0.2"),
    });
    expect(impostor.status).toBe(401);
  });

  it("a second sign-up before verification sends a new code and voids the first", async () => {
    const email = "twice@example.com";
    const headers = fromIp("10.1.0.3");
    await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email, password, business_name: "One" },
      headers,
    });
    const first = await catcher.waitForMail({ to: email });
    await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email, password: "second password here", business_name: "Two" },
      headers,
    });
    const second = await catcher.waitForMail({ to: email, afterId: first.id });
    const firstCode = codeIn(first.subject);
    const secondCode = codeIn(second.subject);
    if (firstCode !== secondCode) {
      const stale = await call(api.baseUrl, "POST", "/auth/verify-email", {
        body: { email, code: firstCode },
        headers,
      });
      expect(stale.status).toBe(400);
    }
    const ok = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email, code: secondCode },
      headers,
    });
    expect(ok.status).toBe(200);
    const login = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email, password: "second password here" },
      headers,
    });
    expect(login.status).toBe(200);
  });

  it("refuses bad input with 400, a code and the param", async () => {
    const headers = fromIp("10.1.0.4");
    const cases: [unknown, string, string][] = [
      [{ password, business_name: "x" }, "parameter_missing", "email"],
      [{ email: "not-an-email", password, business_name: "x" }, "parameter_invalid", "email"],
      [{ email: "a@b.co", password: "short", business_name: "x" }, "parameter_invalid", "password"],
      [{ email: "a@b.co", password: 1234567890123, business_name: "x" }, "parameter_invalid", "password"],
      [{ email: "a@b.co", password, business_name: "   " }, "parameter_invalid", "business_name"],
      [{ email: "a@b.co", password, business_name: "x", admin: true }, "parameter_unknown", "admin"],
    ];
    for (const [body, code, param] of cases) {
      const res = await call(api.baseUrl, "POST", "/auth/signup", { body, headers });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    const notObject = await call(api.baseUrl, "POST", "/auth/login", { body: ["x"], headers });
    expect(notObject.status).toBe(400);
    const missingCode = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email: "a@b.co" },
      headers,
    });
    expect(missingCode.body.error).toMatchObject({ code: "parameter_missing", param: "code" });
  });

  it("answers an unknown address and a wrong password with the same 401", async () => {
    const account = await createTestAccount(api.baseUrl, catcher);
    const headers = fromIp("10.1.0.5");
    const unknown = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: "nobody@example.com", password },
      headers,
    });
    const wrong = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: account.email, password: "wrong password!" },
      headers,
    });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error.code).toBe("credentials_invalid");
    // An unverified account with a wrong password looks like any other wrong password.
    await call(api.baseUrl, "POST", "/auth/signup", {
      body: { email: "unverified@example.com", password, business_name: "U" },
      headers,
    });
    const unverifiedWrong = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email: "unverified@example.com", password: "wrong password!" },
      headers,
    });
    expect(unverifiedWrong.body).toEqual(wrong.body);
  });

  it("verification of an unknown address is the same code_invalid as a wrong code", async () => {
    const res = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email: "ghost@example.com", code: "123456" },
      headers: fromIp("10.1.0.6"),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "code_invalid", param: "code" });
  });
});
