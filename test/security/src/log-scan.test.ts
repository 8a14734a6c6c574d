// Every log line of an end-to-end run with LOG_LEVEL=debug (signer, two APIs, two settlements, a
// notifier, as processes): sign-up, e-mailed codes, login, key creation, payments, webhooks with
// deliveries, a payout wallet set with its code. No key, secret, token, code, password or seed
// words may appear in any of it.
import { type Cluster, startCluster } from "@gateway/chaos-suite";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { startWebhookReceiver, type WebhookReceiver } from "@gateway/testkit";
import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { afterAll, beforeAll, expect, it } from "vitest";

let cluster: Cluster;
let catcher: MailCatcher;
let receiver: WebhookReceiver;
const mnemonic = generateMnemonic(wordlist, 256);

beforeAll(async () => {
  catcher = await createMailCatcher();
  receiver = await startWebhookReceiver();
  cluster = await startCluster({
    logLevel: "debug",
    signerMnemonic: mnemonic,
    apiEnv: { SMTP_URL: catcher.smtpUrl },
  });
}, 240_000);
afterAll(async () => {
  await cluster?.close();
  await receiver?.close();
  await catcher?.close();
});

async function api(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(cluster.apiUrls[Math.floor(Math.random() * cluster.apiUrls.length)] + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { [k: string]: any } };
}
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? "";

it("no secret material in any log line of a full run", async () => {
  const secrets: Record<string, string> = { mnemonic };
  const email = "logscan@example.test";
  const password = "a very secret password 4711";
  secrets.password = password;
  expect((await api("POST", "/auth/signup", {}, { email, password, business_name: "Logs" })).status).toBe(
    201,
  );
  const code = codeIn((await catcher.waitForMail({ to: email, subject: "verification code" })).subject);
  secrets.signupCode = code;
  expect((await api("POST", "/auth/verify-email", {}, { email, code })).status).toBe(200);
  const login = await api("POST", "/auth/login", {}, { email, password });
  expect(login.status).toBe(200);
  secrets.jwt = login.body.token;
  const auth = { authorization: `Bearer ${login.body.token}` };
  const keys = await api("POST", "/api-keys", auth);
  expect(keys.status).toBe(201);
  secrets.testKey = keys.body.test_key;
  secrets.liveKey = keys.body.live_key;
  const key = { "x-api-key": keys.body.test_key };
  // A failed authentication with a real-looking key, which is where keys tend to get logged.
  await api("GET", "/payments", { "x-api-key": `${keys.body.test_key.slice(0, -1)}x` });
  const hook = await api("POST", "/webhooks", key, { url: receiver.url });
  expect(hook.status).toBe(201);
  secrets.webhookSecret = hook.body.secret;
  for (const outcome of ["paid", "underpaid", "overpaid", "expired"]) {
    const p = await api(
      "POST",
      "/payments",
      { ...key, "idempotency-key": `log-${outcome}` },
      { amount: 7, currency: "USD" },
    );
    expect(p.status).toBe(201);
    expect((await api("POST", `/payments/checkout/${p.body.id}/simulate`, {}, { outcome })).status).toBe(202);
  }
  const address = "So11111111111111111111111111111111111111112";
  expect((await api("POST", "/payout-wallets/solana/request-code", auth, { address })).status).toBeLessThan(
    300,
  );
  const otp = codeIn((await catcher.waitForMail({ to: email, subject: "payout wallet code" })).subject);
  secrets.walletCode = otp;
  expect((await api("PUT", "/payout-wallets/solana", auth, { address, otp })).status).toBe(200);
  await api("POST", "/auth/login", {}, { email, password: `${password} wrong` });
  // Deliveries carry the signature made with the secret: wait for them so the notifier logged its work.
  const deadline = Date.now() + 60_000;
  while (receiver.received.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(receiver.received.length).toBeGreaterThanOrEqual(5);
  await new Promise((r) => setTimeout(r, 1000));

  const logs = cluster.services().map((p) => ({ name: p.name, text: p.output() }));
  const lines = logs.reduce((n, l) => n + l.text.split("\n").filter(Boolean).length, 0);
  expect(lines, "debug logging produced lines to scan").toBeGreaterThan(10);
  const words = mnemonic.split(" ");
  const pairs = words.slice(1).map((w, i) => `${words[i]} ${w}`);
  const patterns: [string, RegExp][] = [
    ["API key", /gw_(test|live)_[A-Za-z0-9]{40}/],
    ["webhook secret", /whsec_[A-Za-z0-9_-]{16,}/],
    ["JWT", /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}/],
  ];
  const found: string[] = [];
  for (const { name, text } of logs) {
    for (const [what, value] of Object.entries(secrets)) {
      const needle = what.endsWith("Code") ? new RegExp(`(?<![0-9])${value}(?![0-9])`) : value;
      const line = text
        .split("\n")
        .find((l) => (typeof needle === "string" ? l.includes(needle) : needle.test(l)));
      // The line is shown with the secret masked, so the report does not leak it either.
      if (line !== undefined)
        found.push(`${name}: ${what} in ${line.replaceAll(value, "<SECRET>").slice(0, 400)}`);
    }
    for (const [what, re] of patterns)
      if (re.test(text)) found.push(`${name}: ${what} ${re.exec(text)?.[0].slice(0, 14)}…`);
    for (const pair of pairs) if (text.includes(pair)) found.push(`${name}: seed words "${pair}"`);
  }
  console.log(
    `log scan: ${lines} lines from ${logs.length} processes, ${Object.keys(secrets).length} secrets and 3 patterns, ${found.length} found`,
  );
  expect(found).toEqual([]);
}, 300_000);
