// Live USD payments paid in the chain's own coin at a quoted rate, end to end on the local
// networks: the real API quotes (prices from the local price server, in the feeds' formats),
// the customer pays SOL or SUI on chain, the watcher and settlement complete it, and the ledger
// books the USD value at the quote and the fee in the coin. A transfer after the quote's end is
// returned; with every price source stopped, quotes answer 503 while stablecoins go on.
import {
  call,
  createTestMerchant,
  startTestApi,
  type TestApi,
  type TestMerchant,
} from "@gateway/api/testing";
import type { Sql } from "@gateway/db";
import { waitFor } from "@gateway/testkit";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paySol, payToken, registered, type SolanaHarness, startSolanaHarness } from "./solana-harness.js";
import { type SuiHarness, startSuiHarness } from "./sui-harness.js";

interface Quoted {
  id: string;
  address: string;
  amount: string;
  quote: { rate: string; expires_at: string } | null;
}

const stateOf = async (sql: Sql, id: string) =>
  (await sql<{ state: any }[]>`select state from payments where id = ${id}`)[0]!.state;

const waitStatus = (sql: Sql, id: string, status: string, timeoutMs = 30_000) =>
  waitFor(async () => (await stateOf(sql, id)).status === status, { what: `payment ${status}`, timeoutMs });

/** The credit's transfers: its USD value, rate, and what each account got (debits positive). */
async function creditOf(sql: Sql, paymentId: string) {
  const [tx] = await sql<{ id: string; usd_value_micros: bigint; usd_rate_micros: bigint; coin: string }[]>`
    select id, usd_value_micros, usd_rate_micros, coin from ledger_transfers
    where payment_id = ${paymentId} and kind = 'payment_credited' and linked_to is null`;
  const entries = await sql<{ kind: string; amount: bigint }[]>`
    select a.kind, sum(case when a.id = t.debit_account then t.amount else -t.amount end)::bigint as amount
    from ledger_transfers t join ledger_accounts a on a.id in (t.debit_account, t.credit_account)
    where coalesce(t.linked_to, t.id) = ${tx!.id}
    group by a.kind`;
  const of = (kind: string) => entries.find((e) => e.kind === kind)?.amount ?? 0n;
  return {
    coin: tx!.coin,
    usdValue: tx!.usd_value_micros,
    usdRate: tx!.usd_rate_micros,
    gross: of("platform_vault"),
    fee: -of("platform_fees"),
    net: -of("merchant_available"),
  };
}

/** Two API processes' worth of API on one system: quotes of 15 minutes, and quotes of 2 seconds. */
async function apis(infra: Parameters<typeof startTestApi>[1]) {
  const api = await startTestApi({}, infra);
  const shortQuotes = await startTestApi({ QUOTE_TTL_SECONDS: "2" }, infra);
  return { api, shortQuotes };
}

async function usdPayment(api: TestApi, merchant: TestMerchant, amount: number) {
  const res = await call(api.baseUrl, "POST", "/payments", {
    body: { amount, currency: "USD" },
    headers: { "x-api-key": merchant.liveKey },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function quote(api: TestApi, id: string, chain: string, coin: string): Promise<Quoted> {
  const res = await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
    body: { chain, coin },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id, ...res.body };
}

/** "0.083333334" SOL/SUI → base units (9 decimals), by string. */
const units = (amount: string) => {
  const [whole, fraction = ""] = amount.split(".");
  return BigInt(`${whole}${fraction.padEnd(9, "0")}`);
};

describe("live USD paid in SOL on Solana at a quote", () => {
  let h: SolanaHarness;
  let api: TestApi;
  let shortQuotes: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    h = await startSolanaHarness();
    ({ api, shortQuotes } = await apis({ db: h.db, testBus: h.testBus, signer: h.signer }));
    merchant = await createTestMerchant(h.db.sql, "SOL Shop");
  });
  afterAll(async () => {
    await shortQuotes?.close();
    await api?.close();
    await h?.close();
  });

  function customer(): Keypair {
    const wallet = Keypair.generate();
    h.net.fund(wallet.publicKey.toBase58(), "SOL", "2");
    h.net.fund(wallet.publicKey.toBase58(), "USDC", "50");
    return wallet;
  }

  it("completes at the quoted rate; the ledger books 12.50 USD and the fee in lamports", async () => {
    api.priceServer.setPrice("SOL", "162.40");
    await api.deps.prices!.refresh();
    const id = await usdPayment(api, merchant, 12.5);
    const wallet = await quote(api, id, "solana", "SOL");
    expect(wallet).toMatchObject({ amount: "0.076970444", quote: { rate: "162.40" } });
    await waitFor(() => registered(h, wallet.address), { what: "address registered" });
    await paySol(h, customer(), wallet.address, units(wallet.amount));
    await waitStatus(h.db.sql, id, "completed");

    // 0.13 USD at 162.40 = 800,492.6 lamports, rounded up.
    expect(await creditOf(h.db.sql, id)).toEqual({
      coin: "SOL",
      usdValue: 12_500_000n,
      usdRate: 162_400_000n,
      gross: 76_970_444n,
      fee: 800_493n,
      net: 76_970_444n - 800_493n,
    });
    const resource = await call(api.baseUrl, "GET", `/payments/${id}`, {
      headers: { "x-api-key": merchant.liveKey },
    });
    expect(resource.body).toMatchObject({
      status: "completed",
      coin: "SOL",
      fee: "0.13",
      usd_value_at_completion: "12.50",
      usd_rate_at_completion: "162.40",
      quote: { rate: "162.40" },
    });
  });

  it("returns a transfer sent after the quote ended, then completes on a fresh quote", async () => {
    api.priceServer.reset();
    await api.deps.prices!.refresh();
    await shortQuotes.deps.prices!.refresh();
    const id = await usdPayment(api, merchant, 15);
    const first = await quote(shortQuotes, id, "solana", "SOL");
    expect(first).toMatchObject({ amount: "0.10", quote: { rate: "150.00" } });
    await waitFor(() => registered(h, first.address), { what: "address registered" });
    await waitFor(async () => (await stateOf(h.db.sql, id)).wallet.quote.ended === true, {
      what: "quote ended by settlement",
      timeoutMs: 10_000,
    });
    const payer = customer();
    await paySol(h, payer, first.address, units(first.amount));
    await waitFor(async () => (await stateOf(h.db.sql, id)).refunds[0]?.txid != null, {
      what: "late transfer refunded on chain",
      timeoutMs: 30_000,
    });
    const returned = await stateOf(h.db.sql, id);
    expect(returned).toMatchObject({ status: "pending", amountReceived: "0" });
    expect(returned.refunds[0]).toMatchObject({
      kind: "late",
      amount: "100000000",
      to: payer.publicKey.toBase58(),
    });

    // A fresh quote at today's price on the same address, and the payment completes.
    api.priceServer.setPrice("SOL", "120.00");
    await api.deps.prices!.refresh();
    const fresh = await quote(api, id, "solana", "SOL");
    expect(fresh).toMatchObject({ address: first.address, amount: "0.125", quote: { rate: "120.00" } });
    await paySol(h, payer, fresh.address, units(fresh.amount));
    await waitStatus(h.db.sql, id, "completed");
    expect(await creditOf(h.db.sql, id)).toMatchObject({
      usdValue: 15_000_000n,
      usdRate: 120_000_000n,
      gross: 125_000_000n,
    });
  });

  it("with every price source stopped: quotes answer 503 price_unavailable, a USDC payment completes", async () => {
    const outage = await startTestApi(
      { PRICE_MAX_AGE_SECONDS: "1" },
      { db: h.db, testBus: h.testBus, signer: h.signer },
    );
    try {
      for (const name of ["pyth", "coinbase", "kraken"] as const)
        outage.priceServer.setSource(name, { mode: "down" });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await outage.deps.prices!.refresh();
      const id = await usdPayment(outage, merchant, 12.5);
      const refused = await call(outage.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
        body: { chain: "solana", coin: "SOL" },
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ type: "api_error", code: "price_unavailable" });
      const sol = await call(outage.baseUrl, "POST", "/payments", {
        body: { amount: 1, currency: "SOL" },
        headers: { "x-api-key": merchant.liveKey },
      });
      expect(sol.status).toBe(503);

      const usdc = await quote(outage, id, "solana", "USDC");
      expect(usdc.quote).toBeNull();
      await waitFor(() => registered(h, usdc.address), { what: "address registered" });
      await payToken(h, customer(), usdc.address, "USDC", 12_500_000n);
      await waitStatus(h.db.sql, id, "completed");
      expect(await creditOf(h.db.sql, id)).toMatchObject({
        coin: "USDC",
        usdValue: 12_500_000n,
        fee: 130_000n,
      });
    } finally {
      await outage.close();
    }
  });
});

describe("live USD paid in SUI on Sui at a quote", () => {
  let h: SuiHarness;
  let api: TestApi;
  let shortQuotes: TestApi;
  let merchant: TestMerchant;

  beforeAll(async () => {
    h = await startSuiHarness();
    ({ api, shortQuotes } = await apis({ db: h.db, testBus: h.testBus, signer: h.signer }));
    merchant = await createTestMerchant(h.db.sql, "SUI Shop");
  });
  afterAll(async () => {
    await shortQuotes?.close();
    await api?.close();
    await h?.close();
  });

  async function customer() {
    const keypair = new Ed25519Keypair();
    await h.net.fund(keypair.toSuiAddress(), "SUI", 20_000_000_000n);
    return keypair;
  }

  /** A wallet's SUI transfer: split the amount off the gas coin and send it. */
  async function paySui(from: Ed25519Keypair, to: string, amount: bigint) {
    const tx = new Transaction();
    tx.setSender(from.toSuiAddress());
    tx.setGasPrice(1000n);
    tx.setGasBudget(5_000_000n);
    const [part] = tx.splitCoins(tx.gas, [tx.pure.u64(amount)]);
    tx.transferObjects([part!], tx.pure.address(to));
    const bytes = await tx.build({ client: h.client });
    const { signature } = await from.signTransaction(bytes);
    const result = await h.client.executeTransaction({ transaction: bytes, signatures: [signature] });
    if (!result.Transaction) throw new Error("payment failed");
  }

  it("completes at the quoted rate; the ledger books the USD value and the fee in MIST", async () => {
    api.priceServer.setPrice("SUI", "3.20");
    await api.deps.prices!.refresh();
    const id = await usdPayment(api, merchant, 8);
    const wallet = await quote(api, id, "sui", "SUI");
    expect(wallet).toMatchObject({ amount: "2.50", quote: { rate: "3.20" } });
    await paySui(await customer(), wallet.address, units(wallet.amount));
    await waitStatus(h.db.sql, id, "completed");
    // Fee: 1% of 8.00 USD is 0.08, raised to the 0.10 USD minimum: 0.03125 SUI at 3.20.
    expect(await creditOf(h.db.sql, id)).toEqual({
      coin: "SUI",
      usdValue: 8_000_000n,
      usdRate: 3_200_000n,
      gross: 2_500_000_000n,
      fee: 31_250_000n,
      net: 2_468_750_000n,
    });
  });

  it("returns a transfer sent after the quote ended, and the payment stays payable", async () => {
    api.priceServer.reset();
    await shortQuotes.deps.prices!.refresh();
    const id = await usdPayment(api, merchant, 7);
    const first = await quote(shortQuotes, id, "sui", "SUI");
    expect(first).toMatchObject({ amount: "2.00", quote: { rate: "3.50" } });
    await waitFor(async () => (await stateOf(h.db.sql, id)).wallet.quote.ended === true, {
      what: "quote ended by settlement",
      timeoutMs: 10_000,
    });
    const payer = await customer();
    await paySui(payer, first.address, units(first.amount));
    await waitFor(async () => (await stateOf(h.db.sql, id)).refunds[0]?.txid != null, {
      what: "late transfer refunded on chain",
      timeoutMs: 30_000,
    });
    const state = await stateOf(h.db.sql, id);
    expect(state).toMatchObject({ status: "pending", amountReceived: "0" });
    expect(state.refunds[0]).toMatchObject({ kind: "late", amount: "2000000000", to: payer.toSuiAddress() });
    const fresh = await quote(api, id, "sui", "SUI");
    expect(fresh.address).toBe(first.address);
    expect(Date.parse(fresh.quote!.expires_at)).toBeGreaterThan(Date.now() + 60_000);
  });
});
