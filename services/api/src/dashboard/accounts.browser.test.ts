// Accounts in a real headless Chromium: the authenticator app, a passkey on a virtual
// authenticator (the DevTools protocol's WebAuthn domain), and a team member's view.
import { randomBytes } from "node:crypto";
import { auditAccessibility, type Browser, launchChromium, type Page } from "@gateway/browser-testkit";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { totpNow } from "../../test/totp.js";

const TIMEOUT = 120_000;
let api: TestApi;
let catcher: MailCatcher;
let browser: Browser;
/** WebAuthn needs a domain for its relying party, not an IP: the page is opened at localhost. */
let origin: string;

beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl });
  origin = api.baseUrl.replace("127.0.0.1", "localhost");
  api.deps.config.PUBLIC_BASE_URL = origin;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await catcher?.close();
});

async function open() {
  const context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${origin}/dashboard`);
  return { context, page, errors };
}

const heading = (page: Page, name: string | RegExp) =>
  page.getByRole("heading", { level: 1, name }).waitFor();

async function logIn(page: Page, email: string, password: string) {
  await page.goto(`${origin}/dashboard#/login`);
  await heading(page, "Log in");
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

async function logOut(page: Page) {
  await page.getByRole("button", { name: "Log out" }).click();
  await heading(page, "Log in");
}

describe("accounts in Chromium", () => {
  it(
    "enables the authenticator app from the page's secret, logs in with a code, invites a viewer who sees no payout controls",
    async () => {
      const { page, errors } = await open();
      const owner = await createTestAccount(api.baseUrl, catcher);
      await logIn(page, owner.email, owner.password);
      await heading(page, "Payments");
      await page.getByRole("link", { name: "Security" }).click();
      await heading(page, "Security");
      await page.getByRole("button", { name: "Set up an authenticator app" }).click();
      await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
      const secret = (await page.locator(".totp-secret").textContent())!.trim();
      await page.getByLabel("Code from the app").fill(totpNow(secret));
      await page.getByRole("button", { name: "Turn on" }).click();
      await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
      expect(await page.locator(".recovery-codes li").count()).toBe(10);
      expect(await auditAccessibility(page)).toEqual([]);

      await logOut(page);
      await logIn(page, owner.email, owner.password);
      await heading(page, "Two-factor login");
      // The enabling code is spent; the next window's is within the one step of skew allowed.
      await page.getByLabel("Code", { exact: true }).fill(totpNow(secret, 1));
      await page.getByRole("button", { name: "Continue" }).click();
      await heading(page, "Payments");

      const viewer = `viewer-${randomBytes(4).toString("hex")}@example.test`;
      await page.getByRole("link", { name: "Team" }).click();
      await heading(page, "Team");
      await page.getByLabel("E-mail", { exact: true }).fill(viewer);
      await page.getByLabel("Role", { exact: true }).selectOption("viewer");
      await page.getByRole("button", { name: "Send invitation" }).click();
      await page.getByRole("cell", { name: viewer, exact: true }).first().waitFor();
      const mail = await catcher.waitForMail({ to: viewer, subject: "invitation code" });
      expect(await auditAccessibility(page)).toEqual([]);

      await logOut(page);
      await page.getByRole("link", { name: "Accept an invitation" }).click();
      await heading(page, "Accept an invitation");
      await page.getByLabel("E-mail", { exact: true }).fill(viewer);
      await page.getByLabel("Invitation code").fill(codeIn(mail.subject));
      await page.getByLabel("Password", { exact: true }).fill("a long enough password");
      await page.getByRole("button", { name: "Join the team" }).click();
      await heading(page, "Payments");

      // A viewer reads balances and payouts, but has no control that moves money or changes keys.
      await page.getByRole("link", { name: "Balances & payouts" }).click();
      await heading(page, "Balances & payouts");
      await page
        .getByRole("heading", { name: "Payouts", level: 2 })
        .or(page.getByText("No payouts"))
        .first()
        .waitFor();
      expect(await page.getByRole("heading", { name: "Pay out" }).count()).toBe(0);
      expect(await page.locator('form[aria-label*="ayout"]').count()).toBe(0);
      await page.getByRole("link", { name: "Payout wallets" }).click();
      await heading(page, "Payout wallets");
      expect(await page.getByRole("button", { name: "E-mail me a code" }).count()).toBe(0);
      await page.getByRole("link", { name: "Payout schedule" }).click();
      await heading(page, "Payout schedule");
      expect(await page.getByRole("button", { name: "Save schedule" }).count()).toBe(0);
      await page.getByRole("link", { name: "API keys" }).click();
      await heading(page, "API keys");
      expect(await page.getByRole("button", { name: "Generate a keypair" }).count()).toBe(0);
      expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
      expect(errors).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    "registers a passkey on a virtual authenticator, logs out and logs in with it; replayed and forged responses are refused",
    async () => {
      const { context, page, errors } = await open();
      const cdp = await context.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      const owner = await createTestAccount(api.baseUrl, catcher);
      await logIn(page, owner.email, owner.password);
      await heading(page, "Payments");
      await page.getByRole("link", { name: "Security" }).click();
      await heading(page, "Security");
      // A registration answered for another origin is refused by the server.
      await page.route("**/auth/passkeys/register", async (route) => {
        api.deps.config.PUBLIC_BASE_URL = "http://elsewhere.example";
        await route.continue();
      });
      await page.getByLabel("Name", { exact: true }).fill("Elsewhere");
      const refused = page.waitForResponse("**/auth/passkeys/register");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      expect((await refused).status()).toBe(400);
      await page.getByRole("alert").filter({ hasText: "could not be verified" }).waitFor();
      api.deps.config.PUBLIC_BASE_URL = origin;
      await page.unroute("**/auth/passkeys/register");

      await page.getByLabel("Name", { exact: true }).fill("Work laptop");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.getByRole("cell", { name: "Work laptop", exact: true }).waitFor();
      // The first second factor brings recovery codes, the way out if the key is lost.
      await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
      const recovery = (await page.locator(".recovery-codes li").allTextContents()).map((c) => c.trim());
      expect(recovery).toHaveLength(10);

      await logOut(page);
      let assertion: { login_token: string; response: Record<string, unknown> } | undefined;
      page.on("request", (request) => {
        if (request.url().endsWith("/auth/login/passkey")) assertion = request.postDataJSON();
      });
      await logIn(page, owner.email, owner.password);
      await heading(page, "Two-factor login");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await heading(page, "Payments");
      expect(errors).toEqual([]);

      // The same signed response again: its login token is spent (401), and under a new login
      // token it answers the wrong challenge (400); a forged one is refused too.
      const again = await call(api.baseUrl, "POST", "/auth/login/passkey", { body: assertion });
      expect(again.status).toBe(401);
      expect(again.body.error.code).toBe("login_token_invalid");
      const login = await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: owner.email, password: owner.password },
      });
      expect(login.body.methods).toEqual(["passkey", "recovery_code"]);
      await call(api.baseUrl, "POST", "/auth/login/passkey/options", {
        body: { login_token: login.body.login_token },
      });
      const replayed = await call(api.baseUrl, "POST", "/auth/login/passkey", {
        body: { login_token: login.body.login_token, response: assertion!.response },
      });
      expect(replayed.status).toBe(400);
      expect(replayed.body.error).toMatchObject({ code: "passkey_invalid", param: "response" });
      const forged = await call(api.baseUrl, "POST", "/auth/login/passkey", {
        body: {
          login_token: login.body.login_token,
          response: {
            ...assertion!.response,
            response: { clientDataJSON: "e30", authenticatorData: "AA", signature: "AA" },
          },
        },
      });
      expect(forged.status).toBe(400);
      expect(forged.body.error.code).toBe("passkey_invalid");
      const listed = await call(api.baseUrl, "GET", "/auth/passkeys", { headers: owner.auth });
      expect(listed.status).toBe(401);
      // A recovery code finishes the same login, once.
      const recovered = await call(api.baseUrl, "POST", "/auth/login/2fa", {
        body: { login_token: login.body.login_token, code: recovery[0] },
      });
      expect(recovered.status).toBe(200);
      const session = { authorization: `Bearer ${recovered.body.token}` };
      const keys = await call(api.baseUrl, "GET", "/auth/passkeys", { headers: session });
      expect(keys.body.data.map((k: { name: string }) => k.name)).toEqual(["Work laptop"]);
      // Removing it needs a second factor: a recovery code (the used one no longer counts).
      const path = `/auth/passkeys/${keys.body.data[0].id}`;
      const spent = await call(api.baseUrl, "DELETE", path, {
        headers: session,
        body: { code: recovery[0] },
      });
      expect(spent.status).toBe(400);
      expect(spent.body.error.code).toBe("code_invalid");
      const removed = await call(api.baseUrl, "DELETE", path, {
        headers: session,
        body: { code: recovery[1] },
      });
      expect(removed.status).toBe(200);
      const single = await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: owner.email, password: owner.password },
      });
      expect(single.body.token).toEqual(expect.any(String));
    },
    TIMEOUT,
  );
});
