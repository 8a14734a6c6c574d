import type { Settlement } from "@gateway/settlement";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../testing/merchant.js";
import { call, startTestApi, type TestApi } from "../../testing/test-api.js";
import { startTestSettlement } from "../../testing/test-settlement.js";

let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql, "Corner Café");
  settlement = await startTestSettlement(api);
});
afterAll(async () => {
  await settlement.stop();
  await api.close();
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

async function createPayment() {
  const res = await call(api.baseUrl, "POST", "/payments", {
    body: { amount: 12.5, currency: "USD" },
    headers: { "x-api-key": merchant.testKey },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

interface ChangeNotice {
  event: string;
  id: string;
  data: { version: number; status: string };
}

/** Opens the stream and hands out its events one by one, as an EventSource would parse them. */
async function openStream(paymentId: string) {
  const controller = new AbortController();
  const response = await fetch(`${api.baseUrl}/payments/checkout/${paymentId}/events`, {
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
  it("tells the page of every change, ends once the payment is final, and costs one request", async () => {
    await freshBudget();
    const payment = await createPayment(); // 1
    const stream = await openStream(payment.id); // 2
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const first = await stream.next();
    expect(first).toEqual({ event: "change", id: "0", data: { version: 0, status: "pending" } });

    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    }); // 3
    expect(wallet.status).toBe(200);
    const afterWallet = await stream.next();
    expect(afterWallet?.data.version).toBeGreaterThan(0);
    expect(afterWallet?.data.status).toBe("pending");

    const simulate = await call(api.baseUrl, "POST", `/payments/checkout/${payment.id}/simulate`, {
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
  });
});
