// A live payment paid the way a Solana Pay wallet pays a transaction request: it GETs the label
// and icon, POSTs its account, signs the transaction it is given and sends it. The reference
// client (`@solana/pay`'s fetchTransaction) does the fetching and checks the answer as wallets
// do; the local Solana network, watcher, settlement and signer do the rest.
import {
  call,
  createTestMerchant,
  startTestApi,
  type TestApi,
  type TestMerchant,
} from "@gateway/api/testing";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { waitFor } from "@gateway/testkit";
import { fetchTransaction } from "@solana/pay";
import { ACCOUNT_SIZE } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  registered,
  type SolanaHarness,
  startSolanaHarness,
  statusOf,
  tokenBalance,
} from "./solana-harness.js";

let h: SolanaHarness;
let api: TestApi;
let merchant: TestMerchant;
let catcher: MailCatcher;

beforeAll(async () => {
  h = await startSolanaHarness();
  catcher = await createMailCatcher();
  api = await startTestApi(
    { SOLANA_RPC_URL: h.net.rpcUrl, SMTP_URL: catcher.smtpUrl },
    { db: h.db, testBus: h.testBus, signer: h.signer },
  );
  merchant = await createTestMerchant(h.db.sql, "Tap Shop");
});
afterAll(async () => {
  await api?.close();
  await h?.close();
  await catcher?.close();
});

async function livePayment(body: Record<string, unknown>, chain: string, coin: string) {
  const created = await call(api.baseUrl, "POST", "/payments", {
    body,
    headers: { "x-api-key": merchant.liveKey },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${created.body.id}/generate-wallet`, {
    body: { chain, coin },
  });
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
  await waitFor(() => registered(h, wallet.body.address), { what: "address registered with the provider" });
  return { id: created.body.id as string, wallet: wallet.body };
}

function customer(sol: string, usdc: string): Keypair {
  const wallet = Keypair.generate();
  h.net.fund(wallet.publicKey.toBase58(), "SOL", sol);
  if (usdc !== "0") h.net.fund(wallet.publicKey.toBase58(), "USDC", usdc);
  return wallet;
}

/** What a wallet does with a transaction request: fetch through the reference client, sign, send, confirm. */
async function payThroughRequest(link: string, payer: Keypair): Promise<string> {
  const tx = await fetchTransaction(h.connection, payer.publicKey, new URL(link), {
    commitment: "confirmed",
  });
  expect(tx.feePayer?.toBase58()).toBe(payer.publicKey.toBase58());
  expect(tx.signatures.map((s) => s.publicKey.toBase58())).toEqual([payer.publicKey.toBase58()]);
  tx.sign(payer);
  const signature = await h.connection.sendRawTransaction(tx.serialize());
  await h.connection.confirmTransaction(signature, "confirmed");
  return signature;
}

const lamportsOf = async (key: PublicKey) => BigInt(await h.connection.getBalance(key, "confirmed"));

describe("Solana Pay transaction requests on a live payment", () => {
  it("USDC: GET, POST with the account, sign, send; completes and the payer paid exactly the amount due", async () => {
    const { id, wallet } = await livePayment({ amount: 12.5, currency: "USD" }, "solana", "USDC");
    expect(wallet.transaction_request_url).toBe(`${api.baseUrl}/solana-pay/tx/${id}`);
    const view = await call(api.baseUrl, "GET", `/payments/checkout/${id}`);
    expect(view.body.wallet.transaction_request_url).toBe(wallet.transaction_request_url);

    const label = await call(api.baseUrl, "GET", new URL(wallet.transaction_request_url).pathname);
    expect(label.status).toBe(200);
    expect(label.headers.get("access-control-allow-origin")).toBe("*");
    expect(label.body).toEqual({ label: "Tap Shop", icon: expect.stringMatching(/^http.*\.svg\?v=/) });

    const receipt = await call(api.baseUrl, "POST", `/payments/checkout/${id}/receipt`, {
      body: { email: "payer@example.test" },
    });
    expect(receipt.status).toBe(200);

    const payer = customer("1", "20");
    const lamportsBefore = await lamportsOf(payer.publicKey);
    const signature = await payThroughRequest(wallet.transaction_request_url, payer);
    await waitFor(async () => (await statusOf(h, id)) === "completed", {
      what: "payment completed",
      timeoutMs: 20_000,
    });

    expect(await tokenBalance(h, payer.publicKey.toBase58(), "USDC")).toBe(20_000_000n - 12_500_000n);
    const rent = BigInt(await h.connection.getMinimumBalanceForRentExemption(ACCOUNT_SIZE));
    // The payer paid the fee and the rent of the deposit's token account, nothing else in SOL.
    expect(lamportsBefore - (await lamportsOf(payer.publicKey))).toBe(5000n + rent);
    const [state] = await h.db.sql<{ state: any }[]>`select state from payments where id = ${id}`;
    expect(state!.state).toMatchObject({ amountReceived: "12500000", overpaidAmount: "0", refunds: [] });

    // The receipt names the transaction, with its public explorer's link.
    const mail = await catcher.waitForMail({ to: "payer@example.test", subject: /receipt/ });
    expect(mail.subject).toBe("Your receipt from Tap Shop: 12.50 USD");
    expect(mail.text).toContain("Paid: 12.50 USDC on solana");
    expect(mail.text).toContain(`Transaction: ${signature} (https://solscan.io/tx/${signature})`);
    expect(mail.html).toContain(`<a href="https://solscan.io/tx/${signature}">${signature}</a>`);

    // Paid: the request now refuses, in the specification's error shape.
    const again = await call(api.baseUrl, "POST", `/solana-pay/tx/${id}`, {
      body: { account: payer.publicKey.toBase58() },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      message: "This payment is completed and can no longer be paid.",
      error: { code: "state_conflict" },
    });
  });

  it("SOL: a system transfer of exactly the amount due", async () => {
    const { id, wallet } = await livePayment({ amount: 0.25, currency: "SOL" }, "solana", "SOL");
    const payer = customer("2", "0");
    const before = await lamportsOf(payer.publicKey);
    await payThroughRequest(wallet.transaction_request_url, payer);
    await waitFor(async () => (await statusOf(h, id)) === "completed", {
      what: "payment completed",
      timeoutMs: 20_000,
    });
    expect(before - (await lamportsOf(payer.publicKey))).toBe(250_000_000n + 5000n);
  });

  it("refuses a bad account, a payer without the coin or with too little, with a message a wallet can show", async () => {
    const { id } = await livePayment({ amount: 12.5, currency: "USD" }, "solana", "USDC");
    const post = (account: unknown) =>
      call(api.baseUrl, "POST", `/solana-pay/tx/${id}`, { body: { account } });

    const bad = await post("not-a-key");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      message: "The account is not a Solana wallet address.",
      error: { code: "address_invalid", param: "account" },
    });
    // An address off the curve (a program-derived address) cannot sign.
    const offCurve = PublicKey.findProgramAddressSync([Buffer.from("x")], PublicKey.default)[0];
    expect((await post(offCurve.toBase58())).status).toBe(400);

    const none = await post(customer("1", "0").publicKey.toBase58());
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({
      message: "This wallet holds no USDC; the payment needs 12.50 USDC.",
      error: { code: "insufficient_balance", param: "account" },
    });
    const little = await post(customer("1", "3").publicKey.toBase58());
    expect(little.body.message).toBe("This wallet holds 3.00 USDC; the payment needs 12.50 USDC.");

    const noSol = Keypair.generate();
    h.net.fund(noSol.publicKey.toBase58(), "USDC", "20");
    const fee = await post(noSol.publicKey.toBase58());
    expect(fee.status).toBe(400);
    expect(fee.body.message).toMatch(
      /^This wallet needs 0\.00\d+ SOL for the network fee, and holds 0\.0+ SOL\.$/,
    );
  });

  it("refuses a test payment, and a payment without a Solana wallet", async () => {
    const test = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 5, currency: "USD" },
      headers: { "x-api-key": merchant.testKey },
    });
    const account = customer("1", "10").publicKey.toBase58();
    const refused = await call(api.baseUrl, "POST", `/solana-pay/tx/${test.body.id}`, { body: { account } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/test payment/);

    const live = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 5, currency: "USD" },
      headers: { "x-api-key": merchant.liveKey },
    });
    const unchosen = await call(api.baseUrl, "POST", `/solana-pay/tx/${live.body.id}`, { body: { account } });
    expect(unchosen.status).toBe(409);
    expect(unchosen.body.message).toBe(
      "Choose Solana on the checkout page before paying from a Solana wallet.",
    );
  });
});
