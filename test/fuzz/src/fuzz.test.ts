// Property-based requests over every operation of the served OpenAPI document, plus random
// methods and paths: whatever arrives, the API answers below 500, every error has the documented
// shape and status, and it still answers /healthz afterwards.
// FUZZ_RUNS is the total number of cases (the full run uses 10,000; CI's default is 600).
import { call, createTestMerchant, startTestApi, type TestApi } from "@gateway/api/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anyMethod,
  apiKeyHeader,
  authorizationHeader,
  body,
  contentType,
  type FuzzContext,
  forgeJwt,
  idempotencyKey,
  segment,
} from "./arbitraries.js";
import { type Endpoint, fillPath, loadEndpoints } from "./endpoints.js";
import { contractViolation } from "./error-shape.js";
import { rawRequest } from "./raw-request.js";

const TOTAL = Number(process.env.FUZZ_RUNS ?? 600);
const JWT_SECRET = "fuzz-secret-fuzz-secret-fuzz-secret-0123";

let api: TestApi;
let ctx: FuzzContext;
let endpoints: Endpoint[];
let cases = 0;
const statuses = new Map<number, number>();

beforeAll(async () => {
  api = await startTestApi({ JWT_SECRET });
  const [a, b] = [
    await createTestMerchant(api.db.sql, "Fuzz A"),
    await createTestMerchant(api.db.sql, "Fuzz B"),
  ];
  const payment = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": a.testKey },
    body: { amount: 10, currency: "USD" },
  });
  const otherPayment = await call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": b.testKey },
    body: { amount: 3, currency: "USD" },
  });
  const hook = await call(api.baseUrl, "POST", "/webhooks", {
    headers: { "x-api-key": a.testKey },
    body: { url: "http://127.0.0.1:9/hook", is_test: true },
  });
  const ids = [payment.body, otherPayment.body, hook.body]
    .map((v) => (v as { id?: string }).id)
    .filter((id): id is string => typeof id === "string");
  expect(ids).toHaveLength(3);
  ctx = {
    ids: [...ids, a.keypairId, b.keypairId, a.merchantId],
    testKey: a.testKey,
    liveKey: a.liveKey,
    otherKey: b.testKey,
    jwt: await api.deps.sessions.issue(a.ownerId),
    otherJwt: await api.deps.sessions.issue(b.ownerId),
    jwtSecret: JWT_SECRET,
    merchantId: a.merchantId,
  };
  endpoints = await loadEndpoints(api.baseUrl);
});

afterAll(async () => {
  const figures = [...statuses.entries()].sort(([x], [y]) => x - y).map(([s, n]) => `${s}×${n}`);
  console.log(
    `fuzz: ${cases} requests over ${endpoints?.length ?? 0} operations; statuses ${figures.join(" ")}`,
  );
  await api?.close();
});

function headersArb(): fc.Arbitrary<Record<string, string>> {
  return fc
    .record({
      "x-api-key": apiKeyHeader(ctx),
      authorization: authorizationHeader(ctx),
      "idempotency-key": idempotencyKey,
      "content-type": contentType,
    })
    .map(
      (h) =>
        Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>,
    );
}

async function expectContract(
  method: string,
  path: string,
  headers: Record<string, string>,
  b?: string | Buffer,
) {
  let res: Awaited<ReturnType<typeof rawRequest>>;
  try {
    res = await rawRequest(api.baseUrl, method, path, headers, b);
  } catch (err) {
    // A body the server refused before reading all of it may reset the socket; the answer to
    // such a request is checked by the huge-body case below, so only a live server matters here.
    if (b !== undefined && Buffer.byteLength(b) > 100_000) return;
    throw err;
  }
  cases++;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const violation = contractViolation(res.status, res.text, method);
  if (violation) {
    // Collected rather than thrown so one run lists every distinct finding, each with a short
    // reproduction (the whole request would be megabytes for the huge cases).
    const where = `${method} ${path.slice(0, 120)}`;
    const what = `${violation.slice(0, 160)} | headers ${JSON.stringify(headers).slice(0, 200)} | body ${describeBody(b)}`;
    violations.set(`${method} ${templateOf(path)} ${violation.slice(0, 60)}`, `${where} → ${what}`);
  }
}

const violations = new Map<string, string>();

function describeBody(b: string | Buffer | undefined): string {
  if (b === undefined) return "none";
  const text = Buffer.isBuffer(b) ? `bytes ${b.toString("hex").slice(0, 40)}` : b;
  return `${Buffer.byteLength(b)} bytes: ${text.slice(0, 80)}`;
}

function templateOf(path: string): string {
  return path
    .split("?")[0]!
    .split("/")
    .slice(0, 4)
    .map((s) => (s.length > 20 ? "…" : s))
    .join("/");
}

function expectNoViolations() {
  expect([...violations.values()]).toEqual([]);
}

async function expectAlive() {
  const res = await fetch(`${api.baseUrl}/healthz`);
  expect(res.status).toBe(200);
}

// Findings F1–F4 of this suite, fixed in the API; each stays as a regression test.
describe("fixed findings", () => {
  it("F1: a NUL byte in a path id is a 4xx, not a 500", async () => {
    const res = await rawRequest(api.baseUrl, "POST", "/api-keys/key_%00/deactivate", {
      authorization: `Bearer ${ctx.jwt}`,
    });
    expect(res.status).toBe(400);
    expect(contractViolation(res.status, res.text)).toBeUndefined();
  });
  it("F2: a JSON body nested 5,000 levels deep is a 400, not a 500", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const headers = {
      "x-api-key": ctx.testKey,
      "content-type": "application/json",
      "idempotency-key": "deep",
    };
    const res = await rawRequest(api.baseUrl, "POST", "/webhooks", headers, deep);
    expect(res.status).toBe(400);
    expect(contractViolation(res.status, res.text)).toBeUndefined();
  });
  it("F4: a signed JWT of a merchant that does not exist is a 401 on POST /api-keys, not a 500", async () => {
    const now = Math.floor(Date.now() / 1000);
    const ghost = forgeJwt(
      { alg: "HS256" },
      { sub: "mer_doesnotexist", iss: "gateway", aud: "gateway-dashboard", iat: now, exp: now + 600 },
      JWT_SECRET,
    );
    const res = await rawRequest(api.baseUrl, "POST", "/api-keys", { authorization: `Bearer ${ghost}` });
    expect(res.status).toBe(401);
  });
  it("F3: request headers over 16 kB get the documented error body, not Node's bare 431", async () => {
    const res = await rawRequest(api.baseUrl, "GET", `/payments/${"a".repeat(17_000)}`, {
      "x-api-key": ctx.testKey,
    });
    expect(res.status).toBe(431);
    expect(contractViolation(res.status, res.text)).toBeUndefined();
  });
});

describe("fuzz over the OpenAPI document", () => {
  it("reads at least every operation family from /openapi.json", () => {
    const paths = new Set(endpoints.map((e) => e.path));
    for (const p of [
      "/payments",
      "/webhooks/{id}/redeliver",
      "/api-keys",
      "/payout-wallets/{chain}",
      "/auth/login",
    ]) {
      expect(paths.has(p), p).toBe(true);
    }
    expect(endpoints.length).toBeGreaterThan(20);
  });

  it("every operation: random ids, headers and bodies never give a 5xx or an undocumented error", async () => {
    // Four fifths of the budget go to the documented operations, spread evenly.
    violations.clear();
    const perEndpoint = Math.max(3, Math.ceil((TOTAL * 0.8) / endpoints.length));
    for (const endpoint of endpoints) {
      const segments = fc.record(Object.fromEntries(endpoint.params.map((p) => [p, segment(ctx)])));
      const query = fc.oneof(
        fc.constant(""),
        fc.constantFrom(
          "?limit=0",
          "?limit=101",
          "?limit=-1",
          "?limit=1e3",
          "?limit=abc",
          "?limit=2&limit=3",
        ),
        fc.string({ maxLength: 60 }).map((q) => `?${encodeURI(q)}`),
        segment(ctx).map((s) => `?starting_after=${s}&payment_id=${s}`),
      );
      await fc.assert(
        fc.asyncProperty(segments, query, headersArb(), body, async (segs, q, headers, b) => {
          await expectContract(endpoint.method, fillPath(endpoint.path, segs) + q, headers, b);
        }),
        { numRuns: perEndpoint },
      );
      await expectAlive();
    }
    expectNoViolations();
  }, 600_000);

  it("random methods and paths (documented templates and garbage) never give a 5xx", async () => {
    violations.clear();
    const template = fc.constantFrom(
      ...endpoints.map((e) => e.path),
      "/",
      "/{id}",
      "/{id}/{id}/{id}",
      "/dashboard/api/{id}",
    );
    const path = fc
      .tuple(template, fc.array(segment(ctx), { minLength: 3, maxLength: 3 }), fc.boolean())
      .map(([t, [s0, s1, s2], slash]) => {
        let i = 0;
        const parts = [s0, s1, s2] as string[];
        return t.replace(/\{\w+\}/g, () => parts[i++ % 3] as string) + (slash ? "/" : "");
      });
    await fc.assert(
      fc.asyncProperty(anyMethod, path, headersArb(), body, async (method, p, headers, b) => {
        await expectContract(method, p, headers, method === "GET" || method === "HEAD" ? undefined : b);
      }),
      { numRuns: Math.max(20, Math.ceil(TOTAL * 0.2)) },
    );
    await expectAlive();
    expectNoViolations();
  }, 600_000);
});
