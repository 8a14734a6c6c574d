import { randomBytes } from "node:crypto";
import { createPayout, payoutSubjects } from "@gateway/payouts";
import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";
import { parseInstant } from "./export-range.js";

let api: TestApi;
let settlement: Settlement;
let merchant: TestMerchant;
const payments: Record<string, { id: string; status: string }> = {};

/** Test payments driven to each outcome by the checkout's simulate route, as merchants do. */
async function paymentTo(outcome: string, body: Record<string, unknown>) {
  const created = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": merchant.testKey },
    body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (outcome !== "pending") {
    const sim = await call(api.baseUrl, "POST", `/payments/checkout/${created.body.id}/simulate`, {
      body: { outcome },
    });
    expect(sim.status).toBe(202);
  }
  return created.body.id as string;
}

beforeAll(async () => {
  api = await startTestApi();
  settlement = await startTestSettlement(api);
  merchant = await createTestMerchant(api.db.sql);
  const plan = [
    ["paid", { amount: 12.5, currency: "USD", description: 'Order "42", two lines\nsecond line' }],
    ["underpaid", { amount: 3, currency: "USDC" }],
    ["expired", { amount: 1, currency: "SOL" }],
    // A line break with no comma or quote beside it must be quoted too.
    ["pending", { amount: 7, currency: "USDT", description: "a; b\nc" }],
  ] as const;
  for (const [outcome, body] of plan)
    payments[outcome] = { id: await paymentTo(outcome, body), status: outcome };
  await waitFor(async () => {
    const rows = await api.db.sql<{ status: string }[]>`
      select status from payments where id = ${payments.paid!.id} or id = ${payments.underpaid!.id}`;
    return rows.every((r) => r.status === "completed" || r.status === "refunded");
  });
  await api.db.sql.begin((tx) =>
    createPayout(tx, payoutSubjects(api.deps.bus.topology), {
      merchantId: merchant.merchantId,
      mode: "test",
      chain: "solana",
      coin: "USDC",
      amount: 5_000_000n,
      networkFee: 10_000n,
      destination: randomBytes(16).toString("hex"),
      kind: "manual",
    }),
  );
});
afterAll(async () => {
  await settlement?.stop();
  await api?.close();
});

async function download(path: string, headers: Record<string, string> = { "x-api-key": merchant.testKey }) {
  const res = await fetch(api.baseUrl + path, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** Read back by an independent RFC 4180 parser: a header row, then one object per line. */
function rows(text: string): Record<string, string>[] {
  return parse(text, { columns: true, record_delimiter: "\r\n", strict: true } as never) as Record<
    string,
    string
  >[];
}

describe("GET /exports/*.csv", () => {
  it("payments: every payment of the key's mode in the range, with the accountant's fields", async () => {
    const res = await download("/exports/payments.csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="payments-test-\d{4}-\d{2}-\d{2}-/,
    );
    expect(res.text.split("\r\n")[0]).toBe(
      "payment_id,created_at,updated_at,status,is_test,amount,currency,usd_value,fee,net,chain,coin,amount_received,fee_in_coin,net_in_coin,refunded_in_coin,deposit_address,deposit_txids,sweep_txid,refund_txids,description",
    );
    const table = rows(res.text);
    expect(table.map((r) => r.payment_id)).toEqual(Object.values(payments).map((p) => p.id));
    const paid = table.find((r) => r.payment_id === payments.paid!.id)!;
    expect(paid).toMatchObject({
      status: "completed",
      is_test: "true",
      amount: "12.50",
      currency: "USD",
      usd_value: "12.50",
      fee: "0.13",
      net: "12.37",
      chain: "solana",
      coin: "USDC",
      amount_received: "12.50",
      fee_in_coin: "0.13",
      net_in_coin: "12.37",
      description: 'Order "42", two lines\nsecond line',
    });
    const under = table.find((r) => r.payment_id === payments.underpaid!.id)!;
    expect(under).toMatchObject({ status: "refunded", fee: "", net: "", refunded_in_coin: "1.50" });
    expect(table.find((r) => r.payment_id === payments.pending!.id)).toMatchObject({
      status: "pending",
      description: "a; b\nc",
      chain: "",
    });
    // Quoted in the file itself: many readers end a record at a bare LF, whatever CRLF says.
    expect(res.text).toContain('"a; b\nc"');
  });

  it("payments: the same values the payment resource and the dashboard's transactions show", async () => {
    // A deposit as a watcher reports it and a sent refund, written into a payment's state.
    await api.db.sql`update payments set state = jsonb_set(jsonb_set(state, '{transfers}',
      '[{"transferId":"solana:2depositSig:0","coin":"USDC","amount":"1000000","sender":"x","status":"counted"},
        {"transferId":"solana:gone:1","coin":"USDC","amount":"5","sender":"x","status":"dropped"}]'),
      '{refunds,0,txid}', '"3refundSig"')
      where id = ${payments.underpaid!.id}`;
    const table = rows((await download("/exports/payments.csv")).text);
    const token = await api.deps.sessions.issue(merchant.ownerId);
    for (const row of table) {
      const p = (
        await call(api.baseUrl, "GET", `/payments/${row.payment_id}`, {
          headers: { "x-api-key": merchant.testKey },
        })
      ).body;
      expect(row, p.id).toMatchObject({
        status: p.status,
        amount: p.amount,
        currency: p.currency,
        chain: p.chain ?? "",
        coin: p.coin ?? "",
        deposit_address: p.deposit_address ?? "",
        usd_value: p.usd_value_at_completion ?? p.usd_value_at_creation ?? "",
        created_at: p.created_at,
      });
      if (p.coin) expect(row.amount_received).toBe(p.amount_received);
      const txs = (
        await call(api.baseUrl, "GET", `/dashboard/api/payments/${p.id}/transactions`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).body.data as { kind: string; txid: string }[];
      for (const kind of ["deposit", "sweep", "refund"])
        expect(row[`${kind}_txid${kind === "sweep" ? "" : "s"}`]).toBe(
          txs
            .filter((t) => t.kind === kind)
            .map((t) => t.txid)
            .join(" "),
        );
    }
    expect(table.find((r) => r.payment_id === payments.underpaid!.id)).toMatchObject({
      deposit_txids: "2depositSig",
      refund_txids: "3refundSig",
    });
  });

  it("ledger: the merchant's balance movements, payouts and their fees", async () => {
    const table = rows((await download("/exports/ledger.csv")).text);
    const credit = table.find((r) => r.type === "payment_credited")!;
    expect(credit).toMatchObject({
      account: "merchant_available",
      coin: "USDC",
      payment_id: payments.paid!.id,
    });
    expect(credit.amount).toBe("12.37");
    expect(credit.usd_value).toBe("12.50");
    const reserved = table.filter((r) => r.type === "payout_reserved");
    expect(reserved.map((r) => [r.account, r.amount]).sort()).toEqual([
      ["merchant_available", "-5.00"],
      ["merchant_reserved", "5.00"],
    ]);
    // One transfer between two of the merchant's accounts: a row for each, one movement.
    expect(new Set(reserved.map((r) => r.transaction_id)).size).toBe(1);
    expect(new Set(reserved.map((r) => r.entry_id)).size).toBe(2);
  });

  it("payouts: amount, network fee, net, destination", async () => {
    const table = rows((await download("/exports/payouts.csv")).text);
    expect(table).toHaveLength(1);
    expect(table[0]).toMatchObject({
      is_test: "true",
      simulated: "true",
      coin: "USDC",
      amount: "5.00",
      network_fee: "0.01",
      net_amount: "4.99",
      usd_value: "5.00",
    });
  });

  it("the dashboard session exports either mode; an API key only its own", async () => {
    const token = await api.deps.sessions.issue(merchant.ownerId);
    const test = await download("/exports/payments.csv?mode=test", { authorization: `Bearer ${token}` });
    expect(rows(test.text)).toHaveLength(4);
    const live = await download("/exports/payments.csv", { authorization: `Bearer ${token}` });
    expect(live.status).toBe(200);
    expect(rows(live.text)).toHaveLength(0);
    expect(live.text).toBe(`${live.text.split("\r\n")[0]}\r\n`);
    const forbidden = await download("/exports/payments.csv?mode=live");
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.text).error).toMatchObject({ code: "mode_forbidden", param: "mode" });
    const other = await createTestMerchant(api.db.sql, "Someone else");
    expect(rows((await download("/exports/payments.csv", { "x-api-key": other.testKey })).text)).toHaveLength(
      0,
    );
    expect((await download("/exports/payments.csv", {})).status).toBe(401);
  });

  it("takes from (inclusive) and to (exclusive)", async () => {
    const [row] = await api.db.sql<
      { created_at: Date }[]
    >`select created_at from payments where id = ${payments.paid!.id}`;
    const at = row!.created_at.toISOString();
    const fromRes = await download(`/exports/payments.csv?from=${at}`);
    expect(fromRes.status, fromRes.text).toBe(200);
    const from = rows(fromRes.text);
    expect(from.map((r) => r.payment_id)).toContain(payments.paid!.id);
    const to = rows(
      (
        await download(
          `/exports/payments.csv?from=${new Date(row!.created_at.getTime() - 86_400_000).toISOString()}&to=${encodeURIComponent(at)}`,
        )
      ).text,
    );
    expect(to).toHaveLength(0);
  });

  it("refuses unparsable, inverted, empty and over-a-year ranges with 400", async () => {
    const cases: [string, string][] = [
      ["from=yesterday", "from"],
      ["to=2026-02-30", "to"],
      ["from=2026-01-01T10:00:00", "from"],
      ["from=2026-03-01&to=2026-02-01", "to"],
      ["from=2026-03-01&to=2026-03-01", "to"],
      ["from=2024-01-01&to=2025-01-02", "from"],
      ["mode=both", "mode"],
    ];
    for (const [q, param] of cases) {
      const res = await download(`/exports/ledger.csv?${q}`);
      expect(res.status, q).toBe(400);
      expect(JSON.parse(res.text).error, q).toMatchObject({ code: "parameter_invalid", param });
    }
    expect((await download("/exports/payouts.csv?from=2024-01-01&to=2025-01-01")).status).toBe(200);
  });

  it("parses ISO 8601 dates and zoned date-times only", () => {
    expect(parseInstant("2026-01-31")?.toISOString()).toBe("2026-01-31T00:00:00.000Z");
    expect(parseInstant("2026-01-31T08:00:00+02:00")?.toISOString()).toBe("2026-01-31T06:00:00.000Z");
    expect(parseInstant("2026-01-31T08:00Z")?.toISOString()).toBe("2026-01-31T08:00:00.000Z");
    for (const bad of ["2026-1-31", "2026-13-01", "2026-01-31 08:00Z", "1706659200", ""])
      expect(parseInstant(bad), bad).toBeUndefined();
  });
});
