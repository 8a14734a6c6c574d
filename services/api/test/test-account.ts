// For tests: a merchant signed up, verified and logged in through the real routes.
import { randomBytes } from "node:crypto";
import type { MailCatcher } from "@gateway/mail-catcher";
import { call } from "./test-api.js";

export interface TestAccount {
  email: string;
  password: string;
  token: string;
  merchantId: string;
  /** `Authorization` header for dashboard calls. */
  auth: Record<string, string>;
}

export function codeIn(text: string): string {
  const match = /\b(\d{6})\b/.exec(text);
  if (!match) throw new Error("no 6-digit code in the mail");
  return match[1]!;
}

/** Each caller gets its own X-Forwarded-For address so per-IP limits of one test do not hit another. */
export function fromIp(ip: string): Record<string, string> {
  return { "x-forwarded-for": ip };
}

export async function createTestAccount(
  baseUrl: string,
  catcher: MailCatcher,
  options: { email?: string; ip?: string } = {},
): Promise<TestAccount> {
  const email = options.email ?? `m${randomBytes(5).toString("hex")}@example.test`;
  const password = "correct horse battery";
  const headers = fromIp(options.ip ?? `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`);
  const signup = await call(baseUrl, "POST", "/auth/signup", {
    body: { email, password, business_name: "Test Shop" },
    headers,
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  const mail = await catcher.waitForMail({ to: email, subject: "verification code" });
  const verify = await call(baseUrl, "POST", "/auth/verify-email", {
    body: { email, code: codeIn(mail.subject) },
    headers,
  });
  if (verify.status !== 200) throw new Error(`verify: ${verify.status} ${JSON.stringify(verify.body)}`);
  const login = await call(baseUrl, "POST", "/auth/login", { body: { email, password }, headers });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const token = login.body.token as string;
  const auth = { authorization: `Bearer ${token}` };
  const me = await call(baseUrl, "GET", "/auth/me", { headers: auth });
  return { email, password, token, merchantId: me.body.id, auth };
}
