import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { testDepositAddress } from "@gateway/signer-harness";
import { waitFor } from "@gateway/testkit";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { watchChosenWallet } from "./watched-wallet.js";

let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
beforeAll(async () => {
  // Small batches of addresses derived ahead, so these tests cross many refills of the pool.
  api = await startTestApi({}, undefined, { depositAddressBatch: 2 });
  merchant = await createTestMerchant(api.db.sql, "Corner Café");
  settlement = await startTestSettlement(api);
});
afterAll(async () => {
  await settlement.stop();
  await api.close();
});

async function createPayment(
  body: Record<string, unknown> = { amount: 12.5, currency: "USD" },
  key = merchant.testKey,
  baseUrl = api.baseUrl,
) {
  const res = await call(baseUrl, "POST", "/payments", { body, headers: { "x-api-key": key } });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

describe("checkout API", () => {
  it("shows the public view without merchant secrets", async () => {
    const payment = await createPayment({
      amount: 12.5,
      currency: "USD",
      description: "Two coffees",
      redirect_url: "https://cafe.example/ok",
    });
    const view = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      id: payment.id,
      merchant_name: "Corner Café",
      description: "Two coffees",
      amount: "12.50",
      currency: "USD",
      status: "pending",
      is_test: true,
      redirect_url: null,
      wallet: null,
    });
    // The chain's own coin at the (test-mode fixed) price: an estimate until a quote locks it.
    expect(view.body.options).toEqual([
      { chain: "solana", coin: "USDC", amount: "12.50", rate: null },
      { chain: "solana", coin: "USDT", amount: "12.50", rate: null },
      { chain: "solana", coin: "SOL", amount: "0.083333334", rate: "150.00" },
      { chain: "sui", coin: "USDC", amount: "12.50", rate: null },
      { chain: "sui", coin: "USDT", amount: "12.50", rate: null },
      { chain: "sui", coin: "SUI", amount: "3.571428572", rate: "3.50" },
    ]);
    expect(JSON.stringify(view.body)).not.toContain(merchant.merchantId);
  });

  it("derives a deposit address from the signer, stable per choice and new per choice", async () => {
    const payment = await createPayment();
    const path = `/payments/checkout/${payment.id}/generate-wallet`;
    const solana = await call(api.baseUrl, "POST", path, { body: { chain: "solana", coin: "USDC" } });
    expect(solana.status).toBe(200);
    expect(solana.body).toMatchObject({ chain: "solana", coin: "USDC", amount: "12.50" });
    expect(PublicKey.isOnCurve(new PublicKey(solana.body.address).toBytes())).toBe(true);
    expect(solana.body.payment_uri).toBe(
      `solana:${solana.body.address}?amount=12.50&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&label=Corner%20Caf%C3%A9`,
    );
    const again = await call(api.baseUrl, "POST", path, { body: { chain: "solana", coin: "USDC" } });
    expect(again.body.address).toBe(solana.body.address);
    const sui = await call(api.baseUrl, "POST", path, { body: { chain: "sui", coin: "USDT" } });
    expect(sui.body.address).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sui.body.payment_uri).toBeNull();
    const view = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
    expect(view.body.wallet).toMatchObject({ chain: "sui", coin: "USDT", address: sui.body.address });
    // The signer agrees: the address is the one at the wallet's recorded derivation index.
    const [row] = await api.db.sql<{ derivation_index: bigint }[]>`
      select derivation_index from deposit_wallets where address = ${sui.body.address}`;
    expect(testDepositAddress("sui", "test", Number(row!.derivation_index))).toBe(sui.body.address);
  });

  it("never hands out an address twice, even under concurrent requests", async () => {
    const payments = await Promise.all(Array.from({ length: 10 }, () => createPayment()));
    const wallets = await Promise.all(
      payments.map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
          body: { chain: "solana", coin: "USDT" },
        }),
      ),
    );
    const addresses = new Set(wallets.map((w) => w.body.address));
    expect(addresses.size).toBe(10);
  });

  it("marks no wallet active, and fails nothing, for a payment whose state holds no wallet", async () => {
    const payment = await createPayment();
    await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    await api.db
      .sql`update payments set state = jsonb_set(state, '{wallet}', 'null') where id = ${payment.id}`;
    await watchChosenWallet(api.db.sql, payment.id);
    const wallets = await api.db.sql<{ active: boolean }[]>`
      select active from deposit_wallets where payment_id = ${payment.id}`;
    expect(wallets.map((w) => w.active)).toEqual([false]);
  });

  it("watches exactly the wallet the payment ended on when a customer picks two chains at once", async () => {
    const payments = await Promise.all(Array.from({ length: 40 }, () => createPayment()));
    await Promise.all(
      payments.flatMap((p) =>
        (["solana", "sui"] as const).map((chain) =>
          call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
            body: { chain, coin: "USDC" },
          }),
        ),
      ),
    );
    const rows = await api.db.sql<{ id: string; chosen: string; active: string[] }[]>`
      select p.id, p.state->'wallet'->>'address' as chosen,
        array(select address from deposit_wallets d where d.payment_id = p.id and d.active) as active
      from payments p where p.id = any(${payments.map((p) => p.id)})`;
    expect(rows).toHaveLength(40);
    for (const row of rows) expect(row.active, row.id).toEqual([row.chosen]);
  });

  it("keeps the chosen wallet watched when the request that lost the race marks wallets last", async () => {
    const payment = await createPayment();
    const path = `/payments/checkout/${payment.id}/generate-wallet`;
    await call(api.baseUrl, "POST", path, { body: { chain: "solana", coin: "USDC" } });
    const sui = await call(api.baseUrl, "POST", path, { body: { chain: "sui", coin: "USDC" } });
    // The Solana request's marking, run only now, after the Sui choice won: it reads the
    // payment's choice, so Sui stays the watched address (marking its own wallet would not).
    await watchChosenWallet(api.db.sql, payment.id);
    const active = await api.db.sql<{ address: string }[]>`
      select address from deposit_wallets where payment_id = ${payment.id} and active`;
    expect(active.map((w) => w.address)).toEqual([sui.body.address]);
  });

  it("never hands out an address twice after a restore of the database set its sequence back", async () => {
    const generate = async () => {
      const payment = await createPayment();
      const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
        body: { chain: "sui", coin: "USDC" },
      });
      expect(wallet.status).toBe(200);
      return wallet.body.address as string;
    };
    const before = [await generate(), await generate(), await generate()];
    // What a restore from an older backup does: the sequence goes back; the signer remembers.
    await api.db.sql`select setval('deposit_index_sui_test', 0, false)`;
    // Addresses are derived ahead two at a time here: by the second, the pool has refilled from
    // the sequence at least once, met the signer's memory and moved the sequence past it.
    const after = [await generate(), await generate()];
    for (const address of after) expect(before).not.toContain(address);
    expect(after[0]).not.toBe(after[1]);
    const [row] = await api.db.sql<{ highest: bigint; last: bigint }[]>`
      select max(derivation_index) as highest, (select last_value from deposit_index_sui_test) as last
      from deposit_wallets where chain = 'sui' and mode = 'test'`;
    expect(row!.last).toBeGreaterThanOrEqual(row!.highest);
    expect(after).not.toContain(await generate());
  });

  it("keeps test and live addresses on separate branches", async () => {
    const test = await createPayment({ amount: 1, currency: "SOL" });
    const live = await createPayment({ amount: 1, currency: "SOL" }, merchant.liveKey);
    const [a, b] = await Promise.all(
      [test, live].map((p) =>
        call(api.baseUrl, "POST", `/payments/checkout/${p.id}/generate-wallet`, {
          body: { chain: "solana", coin: "SOL" },
        }),
      ),
    );
    expect(a!.body.address).not.toBe(b!.body.address);
    expect(a!.body.payment_uri).toBe(`solana:${a!.body.address}?amount=1.00&label=Corner%20Caf%C3%A9`);
  });

  it("refuses impossible choices with 400s naming the field", async () => {
    const payment = await createPayment({ amount: 1, currency: "SOL" });
    const path = `/payments/checkout/${payment.id}/generate-wallet`;
    const cases: [unknown, string, string][] = [
      [{ chain: "ethereum", coin: "USDC" }, "chain_unsupported", "chain"],
      [{ chain: "solana", coin: "DOGE" }, "coin_unsupported", "coin"],
      [{ chain: "sui", coin: "SOL" }, "coin_unsupported", "coin"],
      [{ chain: "solana", coin: "USDC" }, "coin_unsupported", "coin"],
      [{ coin: "SOL" }, "parameter_missing", "chain"],
      [{ chain: "solana", coin: "SOL", extra: 1 }, "parameter_unknown", "extra"],
    ];
    for (const [body, code, param] of cases) {
      const res = await call(api.baseUrl, "POST", path, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    const missing = await call(
      api.baseUrl,
      "POST",
      "/payments/checkout/00000000-0000-4000-8000-000000000000/generate-wallet",
      {
        body: { chain: "solana", coin: "SOL" },
      },
    );
    expect(missing.status).toBe(404);
  });

  it("simulates a payment to completion, then shows the redirect", async () => {
    const payment = await createPayment({
      amount: 12.5,
      currency: "USD",
      redirect_url: "https://cafe.example/ok",
    });
    await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    const sim = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(sim.status).toBe(202);
    const view = await waitFor(
      async () => {
        const v = await call(api.baseUrl, "GET", `/payments/checkout/${payment.id}`);
        return v.body.status === "completed" && v.body;
      },
      { what: "completed" },
    );
    expect(view.redirect_url).toBe("https://cafe.example/ok");
    const merchantView = await call(api.baseUrl, "GET", `/payments/${payment.id}`, {
      headers: { "x-api-key": merchant.testKey },
    });
    expect(merchantView.body).toMatchObject({ status: "completed", fee: "0.13", amount_received: "12.50" });
    const again = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(again.status).toBe(409);
    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "sui", coin: "USDC" },
    });
    expect(wallet.status).toBe(409);
  });

  it("sends every payment's simulation on one subject, the payment named in the message", async () => {
    // nats-server keeps every distinct subject of a stream in memory for the stream's 7 days: a
    // subject per payment grew it with every payment (docs/operations.md#stream-subjects).
    const ids: string[] = [];
    for (let n = 0; n < 2; n++) {
      const payment = await createPayment();
      const sim = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
        body: { outcome: "expired" },
      });
      expect(sim.status).toBe(202);
      ids.push(payment.id);
    }
    const rows = await api.db.sql<{ subject: string; payment_id: string }[]>`
      select subject, payload->>'payment_id' as payment_id from outbox
      where payload->>'payment_id' in ${api.db.sql(ids)} and subject like '%.cmd.payment.%'`;
    expect(rows.map((r) => r.payment_id).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((r) => r.subject))).toEqual(
      new Set([api.deps.bus.topology.subjects.paymentCommand("simulate")]),
    );
  });

  it("refuses to simulate live payments (404) and bad outcomes (400)", async () => {
    const live = await createPayment({ amount: 5, currency: "USD" }, merchant.liveKey);
    const res = await call(api.baseUrl, "POST", `/payments/checkout/${live.id}/simulate`, {
      body: { outcome: "paid" },
    });
    expect(res.status).toBe(404);
    const test = await createPayment();
    const bad = await call(api.baseUrl, "POST", `/payments/checkout/${test.id}/simulate`, {
      body: { outcome: "stolen" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "parameter_invalid", param: "outcome" });
  });
});

/** Every test comes from the same IP: its counted requests start again from zero. */
async function freshBudget() {
  await api.db.sql`delete from rate_limit_counters`;
}

/** Requests counted against this client's per-IP budget, over every window. */
async function countedRequests(): Promise<number> {
  const [row] = await api.db.sql<
    { hits: number | null }[]
  >`select sum(hits)::int as hits from rate_limit_counters`;
  return row?.hits ?? 0;
}

interface ChangeNotice {
  event: string;
  id: string;
  data: { version: number; status: string };
}

/** Opens the stream and hands out its events one by one, as an EventSource would parse them. */
async function openStream(paymentId: string, baseUrl = api.baseUrl) {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/payments/checkout/${paymentId}/events`, {
    signal: controller.signal,
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ended = false;
  async function next(timeoutMs = 10_000): Promise<ChangeNotice | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const boundary = buffer.indexOf("\n\n");
      if (boundary >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((line) => line && !line.startsWith(":"))
            .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
        );
        if (!fields.event) continue; // `retry:` and heartbeats
        return { event: fields.event, id: fields.id ?? "", data: JSON.parse(fields.data ?? "null") };
      }
      if (ended) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("no event in time");
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event in time")), remaining)),
      ]);
      if (chunk.done) ended = true;
      else buffer += chunk.value;
    }
  }
  return { response, next, close: () => controller.abort() };
}

describe("checkout change stream", () => {
  // An API of its own over the same database, bus and signer, with a budget under 200 a minute,
  // which is counted one request at a time (docs/dashboard.md, "Rate limits"): its counters are
  // the requests made. The file's API, with a raised budget, counts ahead of its requests.
  let exact: TestApi;
  beforeAll(async () => {
    exact = await startTestApi({ RATE_LIMIT_PER_MINUTE: "150" }, api);
  });
  afterAll(() => exact.close());

  it("tells the page of every change, ends once the payment is final, and costs one request", async () => {
    await freshBudget();
    const payment = await createPayment(undefined, undefined, exact.baseUrl); // 1
    const stream = await openStream(payment.id, exact.baseUrl); // 2
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const first = await stream.next();
    expect(first).toEqual({ event: "change", id: "0", data: { version: 0, status: "pending" } });

    const wallet = await call(exact.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    }); // 3
    expect(wallet.status).toBe(200);
    const afterWallet = await stream.next();
    expect(afterWallet?.data.version).toBeGreaterThan(0);
    expect(afterWallet?.data.status).toBe("pending");

    const simulate = await call(exact.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
      body: { outcome: "paid" },
    }); // 4
    expect(simulate.status).toBe(202);
    const notices: ChangeNotice[] = [];
    for (let notice = await stream.next(); notice; notice = await stream.next()) notices.push(notice);
    // Versions only grow, and the last notice is the final status, after which the stream ends.
    const versions = [afterWallet!, ...notices].map((n) => n.data.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(notices.at(-1)?.data.status).toBe("completed");

    // However many notices it carried, the stream counted as one request against the per-IP
    // budget: four requests in all, where polling every two seconds would have added one each.
    expect(await countedRequests()).toBe(4);
  });

  it("answers a final payment with its status and ends at once", async () => {
    await freshBudget();
    const payment = await createPayment();
    await api.db.sql`update payments set status = 'expired', version = version + 1 where id = ${payment.id}`;
    const stream = await openStream(payment.id);
    expect(await stream.next()).toMatchObject({ data: { status: "expired" } });
    expect(await stream.next()).toBeUndefined();
  });

  it("refuses unknown and malformed ids with the documented 404", async () => {
    await freshBudget();
    for (const id of ["8b0c2f0e-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await call(api.baseUrl, "GET", `/payments/checkout/${id}/events`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: "invalid_request_error", code: "resource_not_found" });
    }
  });

  it("closes every open stream when the process stops following payments", async () => {
    await freshBudget();
    const payment = await createPayment();
    const stream = await openStream(payment.id);
    expect((await stream.next())?.data.status).toBe("pending");
    api.deps.paymentWatch.close();
    expect(await stream.next()).toBeUndefined();
    // A stream opened while the process stops tells the current state and ends at once.
    const late = await openStream(payment.id);
    expect((await late.next())?.data.status).toBe("pending");
    expect(await late.next()).toBeUndefined();
  });
});
