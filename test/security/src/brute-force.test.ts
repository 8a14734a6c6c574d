// Guessing is bounded: verification codes die after 5 wrong tries (even the right one then
// fails), payout-wallet codes likewise, and password guessing on one account is stopped with 429
// whatever addresses it comes from.
import { randomBytes } from "node:crypto";
import { call, startTestApi, type TestApi } from "@gateway/api/testing";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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

const fromIp = (ip: string) => ({ "x-forwarded-for": ip });
const codeIn = (text: string) => {
  const m = /\b(\d{6})\b/.exec(text);
  if (!m) throw new Error(`no code in ${text}`);
  return m[1] as string;
};
const wrong = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0");

async function signUp(ip: string) {
  const email = `bf${randomBytes(4).toString("hex")}@example.test`;
  const password = "correct horse battery staple";
  const res = await call(api.baseUrl, "POST", "/auth/signup", {
    body: { email, password, business_name: "Brute" },
    headers: fromIp(ip),
  });
  expect(res.status).toBe(201);
  const code = codeIn((await catcher.waitForMail({ to: email, subject: "verification code" })).subject);
  return { email, password, code };
}

describe("brute force", () => {
  it("a sign-up code is void after 5 wrong tries, even for the right code", async () => {
    const { email, code } = await signUp("10.20.0.1");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/verify-email", {
        body: { email, code: wrong(code, i) },
        headers: fromIp(`10.20.1.${i}`),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    const right = await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email, code },
      headers: fromIp("10.20.2.1"),
    });
    expect(right.status).toBe(400);
    expect(right.body.error.code).toBe("code_invalid");
  });

  it("password guessing on one account from many addresses ends in 429 with Retry-After", async () => {
    const { email, password, code } = await signUp("10.21.0.1");
    expect(
      (
        await call(api.baseUrl, "POST", "/auth/verify-email", {
          body: { email, code },
          headers: fromIp("10.21.0.1"),
        })
      ).status,
    ).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await call(api.baseUrl, "POST", "/auth/login", {
        body: { email, password: `guess ${i} ${randomBytes(3).toString("hex")}` },
        headers: fromIp(`10.22.${i}.1`),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.error.code).toBe("too_many_attempts");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    // Once blocked, even the right password is refused until the window turns.
    const right = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email, password },
      headers: fromIp("10.22.200.1"),
    });
    expect(right.status).toBe(429);
  });

  it("a payout-wallet code is void after 5 wrong tries", async () => {
    const { email, password, code } = await signUp("10.23.0.1");
    await call(api.baseUrl, "POST", "/auth/verify-email", {
      body: { email, code },
      headers: fromIp("10.23.0.1"),
    });
    const login = await call(api.baseUrl, "POST", "/auth/login", {
      body: { email, password },
      headers: fromIp("10.23.0.1"),
    });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${login.body.token}` };
    const address = "So11111111111111111111111111111111111111112";
    const req = await call(api.baseUrl, "POST", "/payout-wallets/solana/request-code", {
      headers: auth,
      body: { address },
    });
    expect(req.status, JSON.stringify(req.body)).toBeLessThan(300);
    const otp = codeIn((await catcher.waitForMail({ to: email, subject: "payout wallet code" })).subject);
    for (let i = 0; i < 5; i++) {
      const res = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
        headers: auth,
        body: { address, otp: wrong(otp, i) },
      });
      expect([400, 429], JSON.stringify(res.body)).toContain(res.status);
    }
    const right = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: auth,
      body: { address, otp },
    });
    expect([400, 429], JSON.stringify(right.body)).toContain(right.status);
    const wallets = await call(api.baseUrl, "GET", "/payout-wallets", { headers: auth });
    expect(JSON.stringify(wallets.body)).not.toContain(address);
  });
});
