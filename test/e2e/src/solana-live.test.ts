// Live payments on the local Solana network, end to end: a customer's wallet pays the
// deposit address, the provider's webhook (or reconciliation) reaches the watcher, settlement
// sweeps to the vault or refunds through the signer, and the chain ends up agreeing with the
// payments' ledger.
import { call, startTestApi, type TestApi } from "@gateway/api/testing";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { waitFor } from "@gateway/testkit";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUTH_HEADER,
  createLivePayment,
  eventsOf,
  payToken,
  registered,
  type SolanaHarness,
  startSolanaHarness,
  statusOf,
  tokenBalance,
} from "./solana-harness.js";

let h: SolanaHarness;
let vaultStart: bigint;
const completed: string[] = [];
// The API beside settlement, for what the customer is told (receipts and refund notices).
let api: TestApi;
let catcher: MailCatcher;

beforeAll(async () => {
  h = await startSolanaHarness();
  vaultStart = await tokenBalance(h, h.wallets.vault, "USDC");
  catcher = await createMailCatcher();
  api = await startTestApi(
    { SOLANA_RPC_URL: h.net.rpcUrl, SMTP_URL: catcher.smtpUrl },
    { db: h.db, testBus: h.testBus, signer: h.signer },
  );
});
afterAll(async () => {
  await api?.close();
  await h?.close();
  await catcher?.close();
});

async function customer(usdc = "100", usdt = "0"): Promise<Keypair> {
  const wallet = Keypair.generate();
  h.net.fund(wallet.publicKey.toBase58(), "SOL", "1");
  if (usdc !== "0") h.net.fund(wallet.publicKey.toBase58(), "USDC", usdc);
  if (usdt !== "0") h.net.fund(wallet.publicKey.toBase58(), "USDT", usdt);
  return wallet;
}

async function openPayment(options: Parameters<typeof createLivePayment>[1] = {}) {
  const payment = await createLivePayment(h, options);
  await waitFor(() => registered(h, payment.address), { what: "address registered with the provider" });
  return payment;
}

const waitStatus = (id: string, status: string, timeoutMs = 20_000) =>
  waitFor(async () => (await statusOf(h, id)) === status, { what: `payment ${status}`, timeoutMs });

const stateOf = async (id: string) =>
  (await h.db.sql<{ state: any }[]>`select state from payments where id = ${id}`)[0]!.state;

describe("live payments on Solana", () => {
  it("exact payment: confirming, confirmed, completed; swept to the vault, deposit token account closed", async () => {
    const payer = await customer();
    const payment = await openPayment();
    await payToken(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
    const state = await stateOf(payment.id);
    expect(state.amountReceived).toBe("12500000");
    expect(state.credit).toMatchObject({ gross: "12500000" });
    // The sweep emptied and closed the deposit's token account; the deposit never paid a fee.
    const depositAta = getAssociatedTokenAddressSync(
      new PublicKey(h.net.mints.USDC),
      new PublicKey(payment.address),
      true,
    );
    expect(await h.connection.getAccountInfo(depositAta)).toBeNull();
    expect(await h.connection.getBalance(new PublicKey(payment.address))).toBe(0);
  });

  it("two partial transfers add up", async () => {
    const payer = await customer();
    const payment = await openPayment();
    await payToken(h, payer, payment.address, "USDC", 5_000_000n);
    await waitStatus(payment.id, "confirming");
    await payToken(h, payer, payment.address, "USDC", 7_500_000n);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect((await stateOf(payment.id)).amountReceived).toBe("12500000");
  });

  it("underpaid: at expiry the whole amount goes back to the sender", async () => {
    const payer = await customer("10");
    const payment = await openPayment({ expiresInMs: 2500 });
    await payToken(h, payer, payment.address, "USDC", 4_000_000n);
    await waitStatus(payment.id, "refunded");
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.underpaid",
      "payment.refunded",
    ]);
    expect(await tokenBalance(h, payer.publicKey.toBase58(), "USDC")).toBe(10_000_000n);
    expect(await tokenBalance(h, payment.address, "USDC")).toBe(0n);
  });

  it("overpaid: completes and the surplus goes back, with its notice to the customer", async () => {
    const payer = await customer("20");
    const payment = await openPayment();
    const to = "overpayer@example.test";
    const asked = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/receipt`, {
      body: { email: to },
    });
    expect(asked.status).toBe(200);
    await payToken(h, payer, payment.address, "USDC", 15_000_000n);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    await waitFor(async () => (await tokenBalance(h, payer.publicKey.toBase58(), "USDC")) === 7_500_000n, {
      what: "surplus refunded",
    });
    const notice = await catcher.waitForMail({ to, subject: /overpayment/, timeoutMs: 20_000 });
    const state = await stateOf(payment.id);
    expect(state.overpaidAmount).toBe("2500000");
    expect(state.refunds[0]).toMatchObject({ kind: "overpayment", from: "vault" });
    // The notice names the refund's own transaction, the one that paid the surplus back.
    const txid: string = state.refunds[0].txid;
    const [intent] = await h.db.sql<{ final_txid: string }[]>`
      select final_txid from chain_intents where intent_id = ${`refund:${state.refunds[0].refundId}`}`;
    expect(txid).toBe(intent?.final_txid);
    expect(notice.subject).toBe("Your overpayment of 2.50 USDC to Shop was returned");
    expect(notice.text).toContain(`Returned: 2.50 USDC to ${payer.publicKey.toBase58()}`);
    expect(notice.text).toContain(`Transaction: ${txid} (https://solscan.io/tx/${txid})`);
    expect(notice.html).toContain(`<a href="https://solscan.io/tx/${txid}">${txid}</a>`);
    // Still completed, and no payment event for the surplus: merchants see what they saw before.
    expect(await eventsOf(h, payment.id)).toEqual([
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
    await catcher.waitForMail({ to, subject: /receipt/ });
    expect(catcher.messages({ to })).toHaveLength(2);
  });

  it("late: a transfer after expiry is returned in full", async () => {
    const payer = await customer("20");
    const payment = await openPayment({ expiresInMs: 800 });
    await waitStatus(payment.id, "expired");
    await payToken(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "refunded");
    expect(await tokenBalance(h, payer.publicKey.toBase58(), "USDC")).toBe(20_000_000n);
    expect(await eventsOf(h, payment.id)).toEqual(["payment.expired", "payment.refunded"]);
  });

  it("ignores a transfer of another mint", async () => {
    const payer = await customer("0", "20");
    const payment = await openPayment();
    const signature = await payToken(h, payer, payment.address, "USDT", payment.amountDue);
    await waitFor(() => h.watcher.tracker.knows(signature) && h.watcher.tracker.tracked() === 0, {
      what: "the transfer read and settled by the watcher",
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusOf(h, payment.id)).toBe("pending");
    expect(await eventsOf(h, payment.id)).toEqual([]);
  });

  it("a forged provider webhook changes nothing", async () => {
    const payer = await customer();
    const payment = await openPayment();
    // A real signature of another transaction (the customer's funding) dressed as a deposit,
    // and a signature that does not exist at all.
    const real = h.net.fund(payer.publicKey.toBase58(), "USDC", "1");
    const fake = "5".repeat(87);
    const forged = (signature: string) => ({
      signature,
      nativeTransfers: [],
      tokenTransfers: [{ fromUserAccount: payer.publicKey.toBase58(), toUserAccount: payment.address }],
      accountData: [{ account: payment.address, tokenBalanceChanges: [{ userAccount: payment.address }] }],
    });
    const post = (auth: string, body: unknown) =>
      fetch(h.webhookUrl, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post("Bearer wrong", [forged(fake)])).status).toBe(401);
    expect((await post(AUTH_HEADER, { not: "an array" })).status).toBe(400);
    expect((await post(AUTH_HEADER, [forged(fake), forged(real)])).status).toBe(200);
    // The real one is read and found to pay nothing in; the fake one is given up.
    await waitFor(() => h.watcher.tracker.tracked() === 0 && h.watcher.tracker.knows(fake), {
      what: "forged hints looked at and dismissed",
      timeoutMs: 10_000,
    });
    expect(await statusOf(h, payment.id)).toBe("pending");
    expect(await eventsOf(h, payment.id)).toEqual([]);
  });

  it("a dropped webhook is caught by reconciliation", async () => {
    const payer = await customer();
    const payment = await openPayment();
    h.net.webhooks.control({ drop: 1 });
    const signature = await payToken(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect(
      h.net.webhooks.deliveries().some((d) => d.signature === signature && d.outcome === "dropped"),
    ).toBe(true);
    expect(
      h.net.webhooks.deliveries().some((d) => d.signature === signature && d.outcome === "delivered"),
    ).toBe(false);
  });

  it("a duplicated webhook is counted once", async () => {
    const payer = await customer();
    const payment = await openPayment();
    h.net.webhooks.control({ duplicate: 1 });
    const signature = await payToken(h, payer, payment.address, "USDC", payment.amountDue);
    await waitStatus(payment.id, "completed");
    completed.push(payment.id);
    expect(h.net.webhooks.deliveries().filter((d) => d.signature === signature).length).toBe(2);
    const state = await stateOf(payment.id);
    expect(state.amountReceived).toBe("12500000");
    expect(state.refunds).toEqual([]);
  });

  it("on-chain balances equal the ledger, and the gas wallet paid every fee", async () => {
    await waitFor(
      async () => {
        const [open] = await h.db.sql<{ n: number }[]>`
        select count(*)::int as n from chain_intents where final_txid is null`;
        return open!.n === 0;
      },
      { what: "every settlement transaction final" },
    );
    const credited = await h.db.sql<{ gross: string }[]>`
      select state->'credit'->>'gross' as gross from payments where id = any(${completed}::uuid[])`;
    const gross = credited.reduce((sum, row) => sum + BigInt(row.gross), 0n);
    expect(gross).toBe(BigInt(completed.length) * 12_500_000n);
    expect((await tokenBalance(h, h.wallets.vault, "USDC")) - vaultStart).toBe(gross);

    const sent = await h.db.sql<{ final_txid: string }[]>`select final_txid from chain_intents`;
    expect(sent.length).toBeGreaterThanOrEqual(completed.length);
    for (const { final_txid } of sent) {
      const tx = await h.connection.getTransaction(final_txid, {
        commitment: "finalized",
        maxSupportedTransactionVersion: 0,
      });
      expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(h.wallets.gas);
      expect(tx?.meta?.err).toBeNull();
    }
  });
});
