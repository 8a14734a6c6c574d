// generate-wallet's and simulate's writes: concurrent requests share one statement, and each
// request still gets the answer it would get alone (docs/write-path.md, step 5).
import { decide, quotedAmount, toCoinUnits } from "@gateway/domain";
import { type PaymentRow, stateAssignments, stateOf } from "@gateway/payments";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { walletCreator } from "./create-wallet.js";
import { enqueueSimulations } from "./simulate-statements.js";
import { insertWalletsWithState, type NewWallet } from "./wallet-statements.js";

let api: TestApi;
let merchant: TestMerchant;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql, "Batch Bakery");
});
afterAll(() => api.close());

async function createPayment(key = merchant.testKey): Promise<PaymentRow> {
  const res = await call(api.baseUrl, "POST", "/payments", {
    body: { amount: 12.5, currency: "USD" },
    headers: { "x-api-key": key },
  });
  expect(res.status).toBe(201);
  const [row] = await api.db.sql<PaymentRow[]>`select * from payments where id = ${res.body.id}`;
  return row!;
}

/** How many transactions wrote these payments' wallets (rows one transaction wrote share its xmin). */
async function walletWriters(paymentIds: string[]) {
  const [row] = await api.db.sql<{ n: number }[]>`
    select count(distinct xmin::text)::int as n from deposit_wallets where payment_id = any(${paymentIds}::uuid[])`;
  return row!.n;
}

/** How many transactions wrote these payments' commands to the outbox. */
async function commandWriters(paymentIds: string[]) {
  const [row] = await api.db.sql<{ n: number }[]>`
    select count(distinct xmin::text)::int as n from outbox where payload->>'payment_id' = any(${paymentIds}::text[])`;
  return row!.n;
}

let nextIndex = 1_000_000n;
/** A first choice of USDC on Solana, on an address of our own (no signer involved). */
function firstChoice(payment: PaymentRow, address = `batch${(nextIndex + 1n).toString()}`) {
  const wallet: NewWallet = {
    paymentId: payment.id,
    mode: payment.mode,
    chain: "solana",
    coin: "USDC",
    derivationIndex: nextIndex++,
    address,
    amountDue: toCoinUnits(payment.amount, "USD", "USDC"),
    quote: null,
  };
  return { wallet, payment, state: assigned(payment, wallet) };
}

/** The payment's state once `wallet` is its choice. */
function assigned(payment: PaymentRow, wallet: NewWallet) {
  const { chain, coin, address, amountDue } = wallet;
  const quote = wallet.quote && { rate: wallet.quote.rate, expiresAt: wallet.quote.expiresAt.getTime() };
  const decision = decide(stateOf(payment), {
    type: "wallet_assigned",
    chain,
    coin,
    address,
    amountDue,
    quote,
  });
  expect(decision.rejected).toBeFalsy();
  return decision.state;
}

describe("generate-wallet's write", () => {
  it("writes the wallets and states of concurrent requests in shared statements", async () => {
    const payments = await Promise.all(Array.from({ length: 10 }, () => createPayment()));
    const answers = await Promise.all(
      payments.map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
          body: { chain: "solana", coin: "USDC" },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(payments.map(() => 200));
    const ids = payments.map((p) => p.id);
    expect(await walletWriters(ids)).toBeLessThan(ids.length);
    // Each state was written with its own wallet, in the same statement.
    const rows = await api.db.sql<{ same: boolean }[]>`
      select p.xmin = d.xmin and p.state->'wallet'->>'address' = d.address as same
      from payments p join deposit_wallets d on d.payment_id = p.id where p.id = any(${ids}::uuid[])`;
    expect(rows.map((r) => r.same)).toEqual(ids.map(() => true));
  });

  it("writes one state of two choices for one payment; the other finds its payment changed", async () => {
    const payment = await createPayment();
    const solana = firstChoice(payment);
    const sui = firstChoice(payment);
    sui.wallet.chain = "sui";
    sui.state = assigned(payment, sui.wallet);
    const written = await insertWalletsWithState(api.db.sql, [solana, sui]);
    expect(written.map((w) => w.wallet?.chain)).toEqual(["solana", "sui"]);
    const won = written.filter((w) => w.row);
    expect(won).toHaveLength(1);
    expect(won[0]!.row!.version).toBe(payment.version + 1);
    expect(stateOf(won[0]!.row!).wallet?.address).toBe(won[0]!.wallet!.address);
    // A version that moved on meanwhile: the wallet is written, the state is not.
    const stale = firstChoice(payment);
    stale.wallet.coin = "USDT";
    const [late] = await insertWalletsWithState(api.db.sql, [stale]);
    expect(late!.wallet?.coin).toBe("USDT");
    expect(late!.row).toBeUndefined();
  });

  it("sets the columns stateAssignments sets, as it sets them", async () => {
    const payment = await createPayment();
    const rate = 150_000_000n;
    const wallet: NewWallet = {
      paymentId: payment.id,
      mode: payment.mode,
      chain: "solana",
      coin: "SOL",
      derivationIndex: nextIndex++,
      address: `batch${nextIndex}`,
      amountDue: quotedAmount(payment.amount, "SOL", rate),
      quote: { rate, expiresAt: new Date(Date.now() + 600_000) },
    };
    const state = assigned(payment, wallet);
    const [written] = await insertWalletsWithState(api.db.sql, [{ wallet, payment, state }]);
    const [byBatch] = await api.db.sql<
      Record<string, unknown>[]
    >`select * from payments where id = ${payment.id}`;
    expect(written!.row).toBeDefined();
    expect(byBatch!.quote_expires_at).toEqual(wallet.quote!.expiresAt);
    await api.db.sql`update payments set ${stateAssignments(api.db.sql, state)} where id = ${payment.id}`;
    const [byActor] = await api.db.sql<
      Record<string, unknown>[]
    >`select * from payments where id = ${payment.id}`;
    const { version: v1, updated_at: u1, ...batchColumns } = byBatch!;
    const { version: v2, updated_at: u2, ...actorColumns } = byActor!;
    expect(batchColumns).toEqual(actorColumns);
    expect(v2).toBe((v1 as number) + 1);
  });

  it("fails only the bad request of a failing statement", async () => {
    const [first, ...rest] = await Promise.all(Array.from({ length: 5 }, () => createPayment()));
    const [used] = await insertWalletsWithState(api.db.sql, [firstChoice(await createPayment())]);
    const pool = api.deps.depositAddresses;
    let taken = 0;
    let handedOut = 0;
    // The second request's address belongs to another wallet already: its insert breaks
    // `unique (address)`, and so does the statement it shares with the requests after it.
    const create = walletCreator({
      sql: api.db.sql,
      depositAddresses: {
        async take(chain, mode) {
          const n = taken++;
          const address = await pool.take(chain, mode);
          handedOut++;
          return n === 1 ? { index: nextIndex++, address: used!.wallet!.address } : address;
        },
        giveBack: (chain, mode, address) => pool.giveBack(chain, mode, address),
      },
    });
    const choose = (p: PaymentRow) => create(p, "solana", "USDC", toCoinUnits(p.amount, "USD", "USDC"), null);
    // The first request's statement waits on its payment's row lock, so the four others,
    // arriving meanwhile, form the next statement together.
    let release = () => {};
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const lock = api.db.sql.begin(async (tx) => {
      await tx`select 1 from payments where id = ${first!.id} for update`;
      locked();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await lockTaken;
    const results = Promise.allSettled([first!, ...rest].map(choose));
    await waitFor(() => handedOut === 5, { what: "every address handed out" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await lock;
    expect((await results).map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
    for (const r of await results) if (r.status === "fulfilled") expect(r.value.row?.status).toBe("pending");
    const [wallets] = await api.db.sql<{ n: number }[]>`
      select count(*)::int as n from deposit_wallets where payment_id = any(${[first!, ...rest].map((p) => p.id)}::uuid[])`;
    expect(wallets!.n).toBe(4);
  });
});

describe("simulate's statement", () => {
  it("enqueues the commands of concurrent requests in shared statements", async () => {
    const payments = await Promise.all(Array.from({ length: 10 }, () => createPayment()));
    const answers = await Promise.all(
      payments.map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/simulate`, { body: { outcome: "paid" } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(payments.map(() => 202));
    expect(answers.map((a) => a.body.id)).toEqual(payments.map((p) => p.id));
    const ids = payments.map((p) => p.id);
    expect(await commandWriters(ids)).toBeLessThan(ids.length);
  });

  it("answers each request of one statement as it would alone, and enqueues only for a pending test payment", async () => {
    const pending = await createPayment();
    const live = await createPayment(merchant.liveKey);
    const done = await createPayment();
    await api.db.sql`update payments set status = 'completed', version = version + 1 where id = ${done.id}`;
    const unknown = "00000000-0000-4000-8000-000000000000";
    const subject = api.deps.bus.topology.subjects.paymentCommand("simulate");
    const answers = await enqueueSimulations(
      api.db.sql,
      subject,
      [pending.id, live.id, done.id, unknown].map((paymentId) => ({
        paymentId,
        message: { type: "simulate" as const, outcome: "expired" as const },
      })),
    );
    expect(
      answers.map((a) => [a.checkout?.row.id, a.checkout?.row.mode, a.checkout?.row.status, a.enqueued]),
    ).toEqual([
      [pending.id, "test", "pending", true],
      [live.id, "live", "pending", false],
      [done.id, "test", "completed", false],
      [undefined, undefined, undefined, false],
    ]);
    expect(answers[0]!.checkout!.merchantName).toBe("Batch Bakery");
    const rows = await api.db.sql<{ payment_id: string; subject: string; payload: unknown }[]>`
      select payload->>'payment_id' as payment_id, subject, payload from outbox
      where payload->>'payment_id' = any(${[pending.id, live.id, done.id, unknown]}::text[])`;
    expect(rows).toEqual([
      {
        payment_id: pending.id,
        subject,
        payload: { payment_id: pending.id, message: { type: "simulate", outcome: "expired" } },
      },
    ]);
  });

  it("answers 404 for an unknown or malformed id and 409 for a payment that is not pending", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, {
        body: { outcome: "paid" },
      });
      expect(res.status, id).toBe(404);
      expect(res.body.error).toMatchObject({ code: "resource_not_found", param: "id" });
    }
    const done = await createPayment();
    await api.db.sql`update payments set status = 'expired', version = version + 1 where id = ${done.id}`;
    const res = await call(api.baseUrl, "POST", `/payments/checkout/${done.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: "state_conflict" });
  });
});
