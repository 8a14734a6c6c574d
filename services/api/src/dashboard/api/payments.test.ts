import { newId } from "@gateway/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let owner: TestMerchant;
let other: TestMerchant;
let ownerAuth: Record<string, string>;
let otherAuth: Record<string, string>;

async function createPayment(merchant: TestMerchant, mode: "test" | "live", amount: number) {
  const res = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": mode === "test" ? merchant.testKey : merchant.liveKey },
    body: { amount, currency: "USD", description: `${mode} ${amount}` },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

beforeAll(async () => {
  api = await startTestApi();
  owner = await createTestMerchant(api.deps.sql, "Owner");
  other = await createTestMerchant(api.deps.sql, "Other");
  ownerAuth = { authorization: `Bearer ${await api.deps.sessions.issue(owner.ownerId)}` };
  otherAuth = { authorization: `Bearer ${await api.deps.sessions.issue(other.ownerId)}` };
});
afterAll(() => api.close());

describe("dashboard payments JSON", () => {
  it("lists one mode at a time, newest first, with filters and cursor pages", async () => {
    const a = await createPayment(owner, "test", 1);
    const b = await createPayment(owner, "test", 2);
    const c = await createPayment(owner, "test", 3);
    const live = await createPayment(owner, "live", 4);
    await api.db.sql`update payments set status = 'expired' where id = ${a.id}`;

    const test = await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test", { headers: ownerAuth });
    expect(test.status).toBe(200);
    expect(test.body.data.map((p: { id: string }) => p.id)).toEqual([c.id, b.id, a.id]);
    expect(test.body.data[0]).toMatchObject({
      amount: "3.00",
      currency: "USD",
      is_test: true,
      description: "test 3",
    });

    const liveList = await call(api.baseUrl, "GET", "/dashboard/api/payments", { headers: ownerAuth });
    expect(liveList.body.data.map((p: { id: string }) => p.id)).toEqual([live.id]);

    const expired = await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test&status=expired", {
      headers: ownerAuth,
    });
    expect(expired.body.data.map((p: { id: string }) => p.id)).toEqual([a.id]);

    const first = await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test&limit=2", {
      headers: ownerAuth,
    });
    expect(first.body.has_more).toBe(true);
    const second = await call(
      api.baseUrl,
      "GET",
      `/dashboard/api/payments?mode=test&limit=2&starting_after=${first.body.data[1].id}`,
      { headers: ownerAuth },
    );
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([a.id]);
    expect(second.body.has_more).toBe(false);
  });

  it("shows a payment with its events, oldest first", async () => {
    const payment = await createPayment(owner, "test", 5);
    for (const [i, type] of ["payment.confirmed", "payment.completed"].entries()) {
      await api.db.sql`insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
        values (${newId("evt")}, ${owner.merchantId}, 'test', ${type}, ${payment.id}, ${api.db.sql.json({ n: i })},
                now() + make_interval(secs => ${i}))`;
    }
    const res = await call(api.baseUrl, "GET", `/dashboard/api/payments/${payment.id}`, {
      headers: ownerAuth,
    });
    expect(res.status).toBe(200);
    expect(res.body.payment).toMatchObject({ id: payment.id, amount: "5.00" });
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual([
      "payment.confirmed",
      "payment.completed",
    ]);
    expect(res.body.events[0]).toMatchObject({ object: "event", data: { n: 0 } });
  });

  it("refuses bad query parameters with 400 and the param", async () => {
    const cases: [string, string, string][] = [
      ["mode=sandbox", "parameter_invalid", "mode"],
      ["status=paid", "parameter_invalid", "status"],
      ["limit=0", "parameter_invalid", "limit"],
      ["limit=101", "parameter_invalid", "limit"],
      ["sort=asc", "parameter_unknown", "sort"],
    ];
    for (const [query, code, param] of cases) {
      const res = await call(api.baseUrl, "GET", `/dashboard/api/payments?${query}`, { headers: ownerAuth });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
  });
});

describe("dashboard payments JSON: security", () => {
  it("another merchant's payments do not exist", async () => {
    const mine = await createPayment(owner, "test", 7);
    const theirs = await call(api.baseUrl, "GET", `/dashboard/api/payments/${mine.id}`, {
      headers: otherAuth,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe("resource_not_found");
    const list = await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test", { headers: otherAuth });
    expect(list.body.data).toEqual([]);
    // Using someone else's payment as a cursor reveals nothing either.
    const cursor = await call(
      api.baseUrl,
      "GET",
      `/dashboard/api/payments?mode=test&starting_after=${mine.id}`,
      {
        headers: otherAuth,
      },
    );
    expect(cursor.body.data).toEqual([]);
  });

  it("answers ids that are not UUIDs with 404, not a server error", async () => {
    for (const id of ["nope", "'; drop table payments; --", "00000000-0000-0000-0000-000000000000"]) {
      const res = await call(api.baseUrl, "GET", `/dashboard/api/payments/${encodeURIComponent(id)}`, {
        headers: ownerAuth,
      });
      expect(res.status).toBe(404);
    }
  });

  it("an API key is not a session", async () => {
    const res = await call(api.baseUrl, "GET", "/dashboard/api/payments", {
      headers: { "x-api-key": owner.testKey },
    });
    expect(res.status).toBe(401);
  });
});
