// Property-based abuse of the merchant and checkout endpoints: malformed bodies, headers and ids
// must never produce a 5xx, and every error must have the documented shape.
// FUZZ_RUNS raises the number of cases per property (the full suite uses 10,000).
import { ERROR_CODES } from "@gateway/errors";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../test/merchant.js";
import { startTestApi, type TestApi } from "../test/test-api.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
let api: TestApi;
let merchant: TestMerchant;
let paymentId: string;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
  const res = await fetch(`${api.baseUrl}/payments`, {
    method: "POST",
    headers: { "x-api-key": merchant.testKey, "content-type": "application/json" },
    body: JSON.stringify({ amount: 10, currency: "USD" }),
  });
  paymentId = ((await res.json()) as { id: string }).id;
});
afterAll(() => api.close());

async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(api.baseUrl + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, text };
}

function expectDocumentedError(status: number, text: string) {
  expect(status, text).toBeLessThan(500);
  if (status >= 400) {
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.hasOwn(ERROR_CODES, body.error.code), body.error.code).toBe(true);
    expect(["invalid_request_error", "authentication_error", "rate_limit_error", "api_error"]).toContain(
      body.error.type,
    );
    expect(typeof body.error.message).toBe("string");
    expect(ERROR_CODES[body.error.code as keyof typeof ERROR_CODES].status).toBe(status);
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const field = fc.oneof(
  jsonValue,
  fc.double(),
  fc.string(),
  fc.constantFrom("1e5", "NaN", "Infinity", "-0", "0x10", " 5", "5.", ".5", "１２", "12.345678901234567890"),
);
const paymentBody = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        amount: field,
        currency: fc.oneof(field, fc.constantFrom("usd", "SOL", "sui", "USDT")),
        redirect_url: field,
        description: field,
        expires_in: field,
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.string(),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("latin1")),
);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/);
const pathId = fc
  .oneof(
    fc.uuid(),
    fc.string({ maxLength: 40 }),
    fc.constantFrom("%00", "..%2F..%2Fetc", "%E0%A4%A", "' or 1=1 --", "null", "undefined"),
  )
  .map((s) => encodeURIComponent(s).replace(/%25/g, "%"));
const contentType = fc.constantFrom(
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/json; charset=latin1",
  "",
);

describe("fuzz", () => {
  it("POST /payments never fails with 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        paymentBody,
        contentType,
        fc.oneof(fc.constant(merchant.testKey), headerValue),
        headerValue,
        async (body, type, key, idem) => {
          const headers: Record<string, string> = { "x-api-key": key };
          if (type) headers["content-type"] = type;
          if (idem) headers["idempotency-key"] = idem;
          const res = await send("POST", "/payments", headers, body);
          expectDocumentedError(res.status, res.text);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("GET /payments/:id and /payments?… never fail with 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(pathId, fc.string({ maxLength: 60 }), async (id, query) => {
        const headers = { "x-api-key": merchant.testKey };
        expectDocumentedError(
          ...(Object.values(await send("GET", `/payments/${id}`, headers)) as [number, string]),
        );
        const res = await send("GET", `/payments?${query}`, headers);
        expectDocumentedError(res.status, res.text);
      }),
      { numRuns: RUNS },
    );
  });

  it("checkout endpoints never fail with 5xx", async () => {
    const ids = fc.oneof(fc.constant(paymentId), pathId);
    await fc.assert(
      fc.asyncProperty(
        ids,
        paymentBody,
        fc.constantFrom("generate-wallet", "simulate"),
        async (id, body, action) => {
          const view = await send("GET", `/payments/checkout/${id}`, {});
          expectDocumentedError(view.status, view.text);
          // The real payment's stream stays open while it is pending: only other ids are read whole.
          if (id !== paymentId) {
            const events = await send("GET", `/payments/checkout/${id}/events`, {});
            expectDocumentedError(events.status, events.text);
          }
          const res = await send(
            "POST",
            `/payments/checkout/${id}/${action}`,
            { "content-type": "application/json" },
            body,
          );
          expectDocumentedError(res.status, res.text);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
