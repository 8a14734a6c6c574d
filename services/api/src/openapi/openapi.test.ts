import { type Settlement, startTestSettlement } from "@gateway/service-harness";
import { waitFor } from "@gateway/testkit";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../testing/merchant.js";
import { call, startTestApi, type TestApi } from "../testing/test-api.js";

let api: TestApi;
let merchant: TestMerchant;
let settlement: Settlement;
let doc: any;
let ajv: Ajv2020;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
  settlement = await startTestSettlement(api);
  doc = (await call(api.baseUrl, "GET", "/openapi.json")).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
});
afterAll(async () => {
  await settlement.stop();
  await api.close();
});

/** Checks a real response against the document: its status is declared and its body matches. */
function conforms(path: string, method: string, res: { status: number; headers?: Headers; body: unknown }) {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const response = operation.responses[String(res.status)];
  expect(response, `${method} ${path} documents status ${res.status}`).toBeDefined();
  if (!response.content["application/json"]) {
    // Not JSON (an event stream): the media type it declares is the one served.
    const [mediaType] = Object.keys(response.content);
    expect(res.headers?.get("content-type")?.split(";")[0], `${method} ${path} ${res.status}`).toBe(
      mediaType,
    );
    return;
  }
  const schema = response.content["application/json"].schema;
  // Inline schemas point into the document's components; make those references absolute.
  const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const validate = ajv.compile(absolute);
  const valid = validate(res.body);
  expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

describe("openapi.json", () => {
  it("is an OpenAPI 3.1 document whose every operation has an id and responses", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      }
    }
  });

  it("describes what the payments and checkout endpoints really answer", async () => {
    const headers = { "x-api-key": merchant.testKey };
    const created = await call(api.baseUrl, "POST", "/payments", {
      body: { amount: 12.5, currency: "USD", description: "x" },
      headers,
    });
    conforms("/payments", "post", created);
    conforms(
      "/payments",
      "post",
      await call(api.baseUrl, "POST", "/payments", { body: { amount: "abc", currency: "USD" }, headers }),
    );
    conforms(
      "/payments",
      "post",
      await call(api.baseUrl, "POST", "/payments", { body: { amount: 1, currency: "USD" } }),
    );
    conforms("/payments", "get", await call(api.baseUrl, "GET", "/payments?limit=5", { headers }));
    conforms("/payments", "get", await call(api.baseUrl, "GET", "/payments?limit=500", { headers }));
    const id = created.body.id;
    conforms("/payments/{id}", "get", await call(api.baseUrl, "GET", `/payments/${id}`, { headers }));
    conforms(
      "/payments/{id}",
      "get",
      await call(api.baseUrl, "GET", `/payments/${id}`, { headers: { "x-api-key": merchant.liveKey } }),
    );
    conforms("/payments/checkout/{id}", "get", await call(api.baseUrl, "GET", `/payments/checkout/${id}`));
    const wallet = await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
      body: { chain: "solana", coin: "USDC" },
    });
    conforms("/payments/checkout/{id}/generate-wallet", "post", wallet);
    conforms(
      "/payments/checkout/{id}/generate-wallet",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/generate-wallet`, {
        body: { chain: "btc", coin: "USDC" },
      }),
    );
    conforms(
      "/payments/checkout/{id}/simulate",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome: "overpaid" } }),
    );
    await waitFor(
      async () =>
        (await call(api.baseUrl, "GET", `/payments/${id}`, { headers })).body.status === "completed",
    );
    const completed = await call(api.baseUrl, "GET", `/payments/${id}`, { headers });
    expect(completed.body.refunds).toHaveLength(1);
    conforms("/payments/{id}", "get", completed);
    conforms("/payments/checkout/{id}", "get", await call(api.baseUrl, "GET", `/payments/checkout/${id}`));
    // A completed payment's stream is one notice and its end, so it can be read whole.
    conforms(
      "/payments/checkout/{id}/events",
      "get",
      await call(api.baseUrl, "GET", `/payments/checkout/${id}/events`),
    );
    conforms(
      "/payments/checkout/{id}/events",
      "get",
      await call(api.baseUrl, "GET", "/payments/checkout/00000000-0000-4000-8000-000000000000/events"),
    );
    conforms(
      "/payments/checkout/{id}/simulate",
      "post",
      await call(api.baseUrl, "POST", `/payments/checkout/${id}/simulate`, { body: { outcome: "paid" } }),
    );
    conforms("/healthz", "get", await call(api.baseUrl, "GET", "/healthz"));
    conforms("/readyz", "get", await call(api.baseUrl, "GET", "/readyz"));
  });

  it("describes what the accounts, dashboard and webhook endpoints really answer", async () => {
    const token = await api.deps.sessions.issue(merchant.merchantId);
    const bearer = { authorization: `Bearer ${token}` };
    conforms(
      "/auth/signup",
      "post",
      await call(api.baseUrl, "POST", "/auth/signup", {
        body: { email: "new@example.test", password: "a long enough password", business_name: "New" },
      }),
    );
    conforms(
      "/auth/signup",
      "post",
      await call(api.baseUrl, "POST", "/auth/signup", { body: { email: "not-an-email" } }),
    );
    conforms(
      "/auth/login",
      "post",
      await call(api.baseUrl, "POST", "/auth/login", {
        body: { email: "nobody@example.test", password: "whatever whatever" },
      }),
    );
    conforms("/auth/me", "get", await call(api.baseUrl, "GET", "/auth/me", { headers: bearer }));
    conforms(
      "/auth/me",
      "get",
      await call(api.baseUrl, "GET", "/auth/me", { headers: { authorization: "Bearer nope" } }),
    );
    const keys = await call(api.baseUrl, "POST", "/api-keys", { headers: bearer });
    conforms("/api-keys", "post", keys);
    conforms("/api-keys", "get", await call(api.baseUrl, "GET", "/api-keys", { headers: bearer }));
    conforms(
      "/api-keys/{id}/deactivate",
      "post",
      await call(api.baseUrl, "POST", `/api-keys/${keys.body.id}/deactivate`, { headers: bearer }),
    );
    conforms(
      "/api-keys/{id}/activate",
      "post",
      await call(api.baseUrl, "POST", `/api-keys/${keys.body.id}/activate`, { headers: bearer }),
    );
    conforms(
      "/payout-wallets",
      "get",
      await call(api.baseUrl, "GET", "/payout-wallets", { headers: bearer }),
    );
    conforms(
      "/payout-wallets/{chain}",
      "put",
      await call(api.baseUrl, "PUT", "/payout-wallets/sui", {
        headers: bearer,
        body: { address: "0x1", otp: "123456" },
      }),
    );
    conforms(
      "/dashboard/api/payments",
      "get",
      await call(api.baseUrl, "GET", "/dashboard/api/payments?mode=test", { headers: bearer }),
    );
    const headers = { "x-api-key": merchant.testKey };
    const hook = await call(api.baseUrl, "POST", "/webhooks", {
      headers,
      body: { url: "http://127.0.0.1:9/hook", is_test: true },
    });
    conforms("/webhooks", "post", hook);
    conforms(
      "/webhooks",
      "post",
      await call(api.baseUrl, "POST", "/webhooks", { headers, body: { url: "ftp://x" } }),
    );
    conforms("/webhooks", "get", await call(api.baseUrl, "GET", "/webhooks", { headers }));
    conforms(
      "/webhooks/{id}/deliveries",
      "get",
      await call(api.baseUrl, "GET", `/webhooks/${hook.body.id}/deliveries`, { headers }),
    );
    conforms(
      "/webhooks/{id}",
      "delete",
      await call(api.baseUrl, "DELETE", `/webhooks/${hook.body.id}`, { headers }),
    );
  });
});
