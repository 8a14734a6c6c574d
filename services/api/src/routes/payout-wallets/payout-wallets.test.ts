import { randomBytes } from "node:crypto";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeIn, createTestAccount, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { CODE_MAX_ATTEMPTS } from "../auth/email-codes.js";

let api: TestApi;
let catcher: MailCatcher;
let owner: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  owner = await createTestAccount(api.baseUrl, catcher);
  other = await createTestAccount(api.baseUrl, catcher);
});
afterAll(async () => {
  await api.close();
  await catcher.close();
});

const solanaAddress = () => bs58.encode(randomBytes(32));
const suiAddress = () => `0x${randomBytes(32).toString("hex")}`;

async function requestCode(account: TestAccount, chain: string, address: string): Promise<string> {
  const before = catcher.messages({ to: account.email })[0]?.id ?? "0";
  const res = await call(api.baseUrl, "POST", `/payout-wallets/${chain}/request-code`, {
    headers: account.auth,
    body: { address },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const mail = await catcher.waitForMail({
    to: account.email,
    subject: "payout wallet code",
    afterId: before,
  });
  expect(mail.text.toLowerCase()).toContain(address.toLowerCase());
  return codeIn(mail.subject);
}

describe("payout wallets", () => {
  it("links one wallet per chain with an e-mailed code, and replaces it the same way", async () => {
    const sol = solanaAddress();
    const otp = await requestCode(owner, "solana", sol);
    const set = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: sol, otp },
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ object: "payout_wallet", chain: "solana", address: sol });
    await catcher.waitForMail({ to: owner.email, subject: "solana payout wallet was changed" });

    const sui = suiAddress().toUpperCase().replace("0X", "0x");
    const suiOtp = await requestCode(owner, "SUI", sui);
    const setSui = await call(api.baseUrl, "PUT", "/payout-wallets/sui", {
      headers: owner.auth,
      body: { address: sui, otp: suiOtp },
    });
    expect(setSui.status).toBe(200);
    expect(setSui.body.address).toBe(sui.toLowerCase());

    const next = solanaAddress();
    const nextOtp = await requestCode(owner, "solana", next);
    await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: next, otp: nextOtp },
    });

    const list = await call(api.baseUrl, "GET", "/payout-wallets", { headers: owner.auth });
    expect(list.body.data.map((w: { chain: string; address: string }) => [w.chain, w.address])).toEqual([
      ["solana", next],
      ["sui", sui.toLowerCase()],
    ]);
  });

  it("validates addresses for their chain", async () => {
    const bad: [string, unknown, string][] = [
      ["solana", suiAddress(), "address_invalid"],
      ["solana", bs58.encode(randomBytes(31)), "address_invalid"],
      ["solana", bs58.encode(randomBytes(33)), "address_invalid"],
      ["solana", `${solanaAddress().slice(0, -1)}0`, "address_invalid"],
      ["solana", `1${solanaAddress()}`, "address_invalid"],
      ["sui", solanaAddress(), "address_invalid"],
      ["sui", `0x${randomBytes(31).toString("hex")}`, "address_invalid"],
      ["sui", `${randomBytes(32).toString("hex")}`, "address_invalid"],
      ["sui", 42, "address_invalid"],
      ["sui", undefined, "parameter_missing"],
    ];
    for (const [chain, address, code] of bad) {
      const res = await call(api.baseUrl, "POST", `/payout-wallets/${chain}/request-code`, {
        headers: owner.auth,
        body: { address },
      });
      expect(res.status, `${chain} ${String(address)}`).toBe(400);
      expect(res.body.error).toMatchObject({ code, param: "address" });
    }
    const chain = await call(api.baseUrl, "PUT", "/payout-wallets/ethereum", {
      headers: owner.auth,
      body: { address: "0x00", otp: "123456" },
    });
    expect(chain.status).toBe(400);
    expect(chain.body.error).toMatchObject({ code: "chain_unsupported", param: "chain" });
    const noOtp = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: solanaAddress() },
    });
    expect(noOtp.body.error).toMatchObject({ code: "parameter_missing", param: "otp" });
  });
});

describe("payout wallets: security", () => {
  it("a code sets only the chain and address it was mailed for", async () => {
    const asked = solanaAddress();
    const otp = await requestCode(owner, "solana", asked);
    const swapped = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: solanaAddress(), otp },
    });
    expect(swapped.status).toBe(400);
    expect(swapped.body.error).toMatchObject({ code: "code_invalid", param: "otp" });
    const ok = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: asked, otp },
    });
    expect(ok.status).toBe(200);
    const reused = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address: asked, otp },
    });
    expect(reused.status).toBe(400);
  });

  it("5 wrong codes void the code", async () => {
    const address = suiAddress();
    const otp = await requestCode(owner, "sui", address);
    for (let i = 0; i < CODE_MAX_ATTEMPTS; i++) {
      const wrong = String((Number(otp) + 1 + i) % 1_000_000).padStart(6, "0");
      const res = await call(api.baseUrl, "PUT", "/payout-wallets/sui", {
        headers: owner.auth,
        body: { address, otp: wrong },
      });
      expect(res.body.error.code).toBe("code_invalid");
    }
    const right = await call(api.baseUrl, "PUT", "/payout-wallets/sui", {
      headers: owner.auth,
      body: { address, otp },
    });
    expect(right.status).toBe(400);
  });

  it("one merchant cannot read another's wallets nor use another's code", async () => {
    const address = solanaAddress();
    const otp = await requestCode(other, "solana", address);
    const stolen = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: owner.auth,
      body: { address, otp },
    });
    expect(stolen.status).toBe(400);
    const mine = await call(api.baseUrl, "GET", "/payout-wallets", { headers: owner.auth });
    expect(JSON.stringify(mine.body)).not.toContain(address);
    const set = await call(api.baseUrl, "PUT", "/payout-wallets/solana", {
      headers: other.auth,
      body: { address, otp },
    });
    expect(set.status).toBe(200);
    const after = await call(api.baseUrl, "GET", "/payout-wallets", { headers: owner.auth });
    expect(JSON.stringify(after.body)).not.toContain(address);
    const theirs = await call(api.baseUrl, "GET", "/payout-wallets", { headers: other.auth });
    expect(theirs.body.data).toEqual([expect.objectContaining({ chain: "solana", address })]);
  });

  it("the code's value is not stored", async () => {
    const address = suiAddress();
    const otp = await requestCode(other, "sui", address);
    const rows = await api.db.sql`select * from email_codes where merchant_id = ${other.merchantId}`;
    const dump = JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString("hex") : v));
    expect(dump).not.toContain(otp);
  });
});
