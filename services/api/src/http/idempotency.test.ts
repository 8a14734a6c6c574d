import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { claimKey, pruneIdempotencyKeys } from "./idempotency.js";

let api: TestApi;
let merchant: TestMerchant;
beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
});
afterAll(() => api.close());

describe("Idempotency-Key claims", () => {
  it("lets a retry take over a claim left unanswered by a process that died", async () => {
    const body = { amount: 5, currency: "USD" };
    const hash = createHash("sha256")
      .update(`POST /payments\n${JSON.stringify(body)}`)
      .digest();
    const scope = `key:${merchant.merchantId}:test`;
    // An API process claimed the key, then was killed before answering.
    await api.db.sql`insert into idempotency_keys (scope, key, request_hash, created_at)
      values (${scope}, 'crashed', ${hash}, now() - interval '2 minutes')`;
    const headers = { "x-api-key": merchant.testKey, "Idempotency-Key": "crashed" };
    const retry = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(retry.status).toBe(201);
    const again = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(again.body.id).toBe(retry.body.id);
  });

  it("a takeover after the dead process had created the payment returns that payment, not a second one", async () => {
    const body = { amount: 7, currency: "USD" };
    const headers = { "x-api-key": merchant.testKey, "Idempotency-Key": "died-after-insert" };
    const first = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(first.status).toBe(201);
    // What a process killed between its insert and storing its answer leaves behind: the
    // payment, and the key's claim with no answer, now old enough to be taken over.
    await api.db.sql`update idempotency_keys set status = null, response = null,
      created_at = now() - interval '2 minutes'
      where scope = ${`key:${merchant.merchantId}:test`} and key = 'died-after-insert'`;
    const retry = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    const [count] = await api.db.sql<{ n: bigint }[]>`
      select count(*) as n from payments where merchant_id = ${merchant.merchantId} and amount = 700`;
    expect(count!.n).toBe(1n);
  });

  it("an attempt whose claim committed but whose answer was lost is recognised by the same request only", async () => {
    const claim = {
      scope: `key:${merchant.merchantId}:test`,
      key: "reply-lost",
      requestHash: Buffer.alloc(32, 1),
      token: randomUUID(),
    };
    expect(await claimKey(api.db.sql, claim)).toEqual({ claimed: true });
    // The connection dropped after the commit: the request tries again with the same token.
    expect(await claimKey(api.db.sql, claim)).toEqual({ claimed: true });
    // Any other request, the client's own retry included, finds it in progress.
    const other = await claimKey(api.db.sql, { ...claim, token: randomUUID() });
    expect(other).toMatchObject({ claimed: false, existing: { status: null } });
  });

  it("keys past the 24 h retention are pruned; younger ones stay", async () => {
    const scope = `key:${merchant.merchantId}:test`;
    const hash = Buffer.alloc(32);
    await api.db.sql`insert into idempotency_keys (scope, key, request_hash, status, response, created_at)
      values (${scope}, 'old-1', ${hash}, 201, '{}', now() - interval '25 hours'),
             (${scope}, 'old-2', ${hash}, 201, '{}', now() - interval '30 days'),
             (${scope}, 'young', ${hash}, 201, '{}', now() - interval '23 hours')`;
    expect(await pruneIdempotencyKeys(api.db.sql)).toBe(2);
    const left = await api.db.sql<{ key: string }[]>`
      select key from idempotency_keys where scope = ${scope} and key in ('old-1', 'old-2', 'young')`;
    expect(left.map((r) => r.key)).toEqual(["young"]);
  });

  it("a key back after the 24 h retention is a new claim, whatever it was used for before", async () => {
    const scope = `key:${merchant.merchantId}:test`;
    await api.db.sql`insert into idempotency_keys (scope, key, request_hash, status, response, created_at)
      values (${scope}, 'reused-later', ${Buffer.alloc(32, 9)}, 201, '{"id":"old"}', now() - interval '25 hours')`;
    const body = { amount: 8, currency: "USD" };
    const headers = { "x-api-key": merchant.testKey, "Idempotency-Key": "reused-later" };
    const res = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(res.status).toBe(201);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(res.body.id).not.toBe("old");
    const again = await call(api.baseUrl, "POST", "/payments", { body, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(res.body.id);
  });

  it("answers concurrent keyed requests each with its own payment, and replays each", async () => {
    const headers = (n: number) => ({ "x-api-key": merchant.testKey, "Idempotency-Key": `together-${n}` });
    const body = (n: number) => ({ amount: 10 + n, currency: "USD" });
    const first = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        call(api.baseUrl, "POST", "/payments", { body: body(n), headers: headers(n) }),
      ),
    );
    expect(first.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(new Set(first.map((r) => r.body.id)).size).toBe(12);
    const again = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        call(api.baseUrl, "POST", "/payments", { body: body(n), headers: headers(n) }),
      ),
    );
    expect(again.map((r) => r.headers.get("idempotent-replayed"))).toEqual(Array(12).fill("true"));
    expect(again.map((r) => r.body.id)).toEqual(first.map((r) => r.body.id));
  });

  it("still answers 409 for a claim that is in progress right now", async () => {
    const body = { amount: 6, currency: "USD" };
    const hash = createHash("sha256")
      .update(`POST /payments\n${JSON.stringify(body)}`)
      .digest();
    await api.db.sql`insert into idempotency_keys (scope, key, request_hash)
      values (${`key:${merchant.merchantId}:test`}, 'busy', ${hash})`;
    const res = await call(api.baseUrl, "POST", "/payments", {
      body,
      headers: { "x-api-key": merchant.testKey, "Idempotency-Key": "busy" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("idempotency_request_in_progress");
  });
});
