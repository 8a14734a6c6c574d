import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConnectionError,
  createGateway,
  InvalidRequestError,
  RateLimitError,
} from "./index.js";

// A scripted HTTP server stands in for the network's misbehaviour (rate limits, outages); the
// SDK against the real API is tested end to end in test/e2e.
type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function scripted(replies: Reply[]) {
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)]!;
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, gateway: createGateway({ apiKey: "gw_test_abc", baseUrl, retryBaseMs: 10 }) };
}

const error = (type: string, code: string, param?: string) => ({
  error: { type, code, message: code, ...(param ? { param } : {}) },
});

describe("SDK transport", () => {
  it("retries a 429 after Retry-After and a 5xx, keeping one Idempotency-Key", async () => {
    const { seen, gateway } = await scripted([
      { status: 429, body: error("rate_limit_error", "rate_limited"), headers: { "retry-after": "1" } },
      { status: 503, body: error("api_error", "service_unavailable") },
      { status: 201, body: { id: "p1", object: "payment" } },
    ]);
    const started = Date.now();
    const payment = await gateway.payments.create({ amount: 12.5, currency: "USD" });
    expect(payment.id).toBe("p1");
    expect(seen).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const keys = new Set(seen.map((s) => s.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]!.headers["x-api-key"]).toBe("gw_test_abc");
    expect(JSON.parse(seen[0]!.body)).toEqual({ amount: 12.5, currency: "USD" });
  });

  it("throws typed errors at once for client faults", async () => {
    const { seen, gateway } = await scripted([
      { status: 400, body: error("invalid_request_error", "amount_too_precise", "amount") },
    ]);
    const err = await gateway.payments.create({ amount: 1.005, currency: "USD" }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err).toMatchObject({ status: 400, code: "amount_too_precise", param: "amount" });
    expect(seen).toHaveLength(1);
  });

  it("maps 401 and exhausted 429s to their classes", async () => {
    const auth = await scripted([{ status: 401, body: error("authentication_error", "api_key_invalid") }]);
    await expect(auth.gateway.payments.retrieve("x")).rejects.toBeInstanceOf(AuthenticationError);
    server?.close();
    const limited = await scripted([
      { status: 429, body: error("rate_limit_error", "rate_limited"), headers: { "retry-after": "0" } },
    ]);
    await expect(limited.gateway.payments.retrieve("x")).rejects.toBeInstanceOf(RateLimitError);
    expect(limited.seen).toHaveLength(4);
  });

  it("uses the caller's Idempotency-Key and pages through lists lazily", async () => {
    const { seen, gateway } = await scripted([
      { status: 200, body: { object: "list", data: [{ id: "a" }, { id: "b" }], has_more: true } },
      { status: 200, body: { object: "list", data: [{ id: "c" }], has_more: false } },
    ]);
    const ids: string[] = [];
    for await (const payment of gateway.payments.list({ status: "completed", limit: 2 }))
      ids.push(payment.id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(seen.map((s) => s.url)).toEqual([
      "/payments?status=completed&limit=2",
      "/payments?status=completed&limit=2&starting_after=b",
    ]);
  });

  it("gives up on an unreachable server with a ConnectionError", async () => {
    const gateway = createGateway({
      apiKey: "gw_live_x",
      baseUrl: "http://127.0.0.1:1",
      retryBaseMs: 5,
      maxRetries: 2,
    });
    await expect(gateway.payments.retrieve("x")).rejects.toBeInstanceOf(ConnectionError);
    expect(gateway.mode).toBe("live");
  });

  it("refuses a key that is not a Gateway key", () => {
    expect(() => createGateway({ apiKey: "sk_live_x", baseUrl: "http://x" })).toThrow(/gw_test_/);
  });
});
