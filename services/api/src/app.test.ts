import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, startTestApi, type TestApi } from "../test/test-api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe("api skeleton", () => {
  it("answers health and readiness", async () => {
    expect((await call(api.baseUrl, "GET", "/healthz")).body).toEqual({ status: "ok" });
    const ready = await call(api.baseUrl, "GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ database: "ok", nats: "ok" });
  });

  it("answers unknown routes with the documented 404 body", async () => {
    const res = await call(api.baseUrl, "GET", "/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { type: "invalid_request_error", code: "route_not_found", message: "No such endpoint." },
    });
  });

  it("sets security headers", async () => {
    const res = await call(api.baseUrl, "GET", "/healthz");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-powered-by")).toBeNull();
  });
});

describe("metrics", () => {
  it("exposes HTTP latency by route pattern and database gauges at /metrics", async () => {
    await call(api.baseUrl, "GET", "/payments/00000000-0000-4000-8000-000000000000", {
      headers: { "x-api-key": "gw_test_x" },
    });
    const res = await fetch(`${api.baseUrl}/metrics`);
    const text = await res.text();
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(text).toMatch(/gateway_http_request_duration_seconds_count\{[^}]*route="\/payments\/:id"/);
    expect(text).toContain("gateway_outbox_pending");
    expect(text).not.toContain("00000000-0000-4000-8000-000000000000");
  });
});
