import { createHash, randomUUID } from "node:crypto";
import QRCode from "qrcode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { PAGE_CSP } from "../front-end/page-response.js";

let api: TestApi;
let merchant: TestMerchant;
let nextIp = 1;

beforeAll(async () => {
  // A limit of two calls a minute shows that page loads, assets and QR codes are not counted.
  // Loopback is a trusted proxy here, so each JSON call below can come from its own client IP.
  api = await startTestApi({ RATE_LIMIT_PER_MINUTE: "2", TRUSTED_PROXIES: "127.0.0.1" });
  merchant = await createTestMerchant(api.deps.sql, `<script>alert("x")</script> & Sons`);
});

afterAll(async () => {
  await api?.close();
});

/** A JSON API call from a client IP of its own, so the tiny rate limit never stops the setup. */
function apiCall(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const ip = `198.51.100.${nextIp++}`;
  return call(api.baseUrl, method, path, {
    ...options,
    headers: { ...options.headers, "x-forwarded-for": ip },
  });
}

async function createPayment(body: Record<string, unknown>, key = merchant.testKey): Promise<string> {
  const res = await apiCall("POST", "/payments", { body, headers: { "x-api-key": key } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Page loads all from one client IP, well past the limit. */
const PAGE_CLIENT = { "x-forwarded-for": "203.0.113.7" };

function scriptAndStyleUrls(html: string) {
  const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
  const styles = [...html.matchAll(/<link rel="stylesheet"([^>]*)>/g)].map((m) => m[1]!);
  return { scripts, styles };
}

describe("GET /gateway", () => {
  it("renders the page with a strict CSP, escaped merchant data and no inline script", async () => {
    const id = await createPayment({ amount: 12.5, currency: "USD", description: "Order <b>#42</b>" });
    const res = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, { headers: PAGE_CLIENT });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("script-src 'self'");
    expect(PAGE_CSP).not.toContain("unsafe-inline");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = res.body as string;
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Sons");
    expect(html).not.toContain('<script>alert("x")');
    expect(html).toContain("Order &lt;b&gt;#42&lt;/b&gt;");
    expect(html).toContain(`data-payment-id="${id}"`);
    expect(html).toContain("12.50");
    expect(html).toContain("Test mode");
    const { scripts } = scriptAndStyleUrls(html);
    expect(scripts.length).toBe(1);
    for (const attrs of scripts) expect(attrs).toMatch(/src="\/gateway\/assets\//);
  });

  it("shows no test banner and no simulation controls on a live payment", async () => {
    const id = await createPayment({ amount: 30, currency: "USDT" }, merchant.liveKey);
    const res = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, { headers: PAGE_CLIENT });
    expect(res.status).toBe(200);
    expect(res.body).toContain("30.00");
    expect(res.body).not.toContain("test-banner");
    expect(res.body).not.toContain("data-simulate");
    const test = await createPayment({ amount: 30, currency: "USDT" });
    const testPage = await call(api.baseUrl, "GET", `/gateway?payment_id=${test}`, { headers: PAGE_CLIENT });
    expect(testPage.body).toContain('data-simulate="paid"');
  });

  it("serves the assets it links, versioned by content hash, without rate limiting", async () => {
    const id = await createPayment({ amount: 1, currency: "SOL" });
    const page = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, { headers: PAGE_CLIENT });
    const { scripts, styles } = scriptAndStyleUrls(page.body as string);
    expect(scripts.length + styles.length).toBe(2);
    for (const attrs of [...scripts, ...styles]) {
      const href = /(?:src|href)="([^"]+)"/.exec(attrs)![1]!;
      const version = new URL(href, api.baseUrl).searchParams.get("v");
      for (let i = 0; i < 3; i++) {
        const res = await fetch(api.baseUrl + href, { headers: PAGE_CLIENT });
        expect(res.status).toBe(200);
        const body = Buffer.from(await res.arrayBuffer());
        expect(createHash("sha256").update(body).digest("hex").slice(0, 12)).toBe(version);
        expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      }
      // Another deploy's version (or none) is served too, but never cached for long.
      const stale = await fetch(`${api.baseUrl}${href.replace(/v=\w+/, "v=0123456789ab")}`);
      expect(stale.status).toBe(200);
      expect(stale.headers.get("cache-control")).toBe("public, max-age=60");
    }
    const js = await fetch(`${api.baseUrl}/gateway/assets/checkout.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await fetch(`${api.baseUrl}/gateway/assets/nope.js`)).status).toBe(404);
    // Five page loads with a limit of two a minute: pages are never counted.
    for (let i = 0; i < 5; i++) {
      expect(
        (await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, { headers: PAGE_CLIENT })).status,
      ).toBe(200);
    }
  });

  it("answers a missing payment_id with a 400 page", async () => {
    for (const path of ["/gateway", "/gateway?payment_id=", "/gateway?payment_id=a&payment_id=b"]) {
      const res = await call(api.baseUrl, "GET", path);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
      expect(res.body).toContain("Payment link incomplete");
    }
  });

  it("answers an unknown or malformed payment id with a friendly 404 page", async () => {
    for (const id of [randomUUID(), "not-a-uuid", "%3Cscript%3E", "' or 1=1 --"]) {
      const res = await call(api.baseUrl, "GET", `/gateway?payment_id=${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.body).toContain("Payment not found");
      expect(res.body).not.toContain("<script");
    }
  });
});

describe("GET /gateway/qr", () => {
  it("encodes the Solana Pay URI of the chosen wallet, or the bare address on Sui", async () => {
    const id = await createPayment({ amount: 5, currency: "USD", description: "Mug" });
    const none = await fetch(`${api.baseUrl}/gateway/qr?payment_id=${id}&chain=solana&coin=USDC`);
    expect(none.status).toBe(404);

    for (const [chain, coin] of [
      ["solana", "USDC"],
      ["sui", "USDT"],
    ] as const) {
      const wallet = await apiCall("POST", `/payments/checkout/${id}/generate-wallet`, {
        body: { chain, coin },
      });
      expect(wallet.status).toBe(200);
      const res = await fetch(`${api.baseUrl}/gateway/qr?payment_id=${id}&chain=${chain}&coin=${coin}`, {
        headers: PAGE_CLIENT,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      const svg = await res.text();
      const encoded: string = wallet.body.payment_uri ?? wallet.body.address;
      if (chain === "solana") expect(encoded).toMatch(/^solana:/);
      else expect(encoded).toBe(wallet.body.address);
      const expected = await QRCode.toString(encoded, {
        type: "svg",
        errorCorrectionLevel: "M",
        margin: 2,
        color: { dark: "#000000", light: "#ffffff" },
      });
      expect(svg).toBe(expected);
    }
  });

  it("is 404 for unknown payments, chains and coins", async () => {
    const id = await createPayment({ amount: 5, currency: "USD" });
    for (const query of [
      `payment_id=${randomUUID()}&chain=solana&coin=USDC`,
      `payment_id=${id}&chain=bitcoin&coin=USDC`,
      `payment_id=${id}&chain=solana&coin=DOGE`,
      `payment_id=${id}`,
      "",
    ]) {
      expect((await fetch(`${api.baseUrl}/gateway/qr?${query}`)).status).toBe(404);
    }
  });
});

describe("GET /gateway in the customer's language", () => {
  it("follows Accept-Language, lets ?lang= override it, and formats the amount for the language", async () => {
    const id = await createPayment({ amount: 1234.5, currency: "USD" });
    const german = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, {
      headers: { ...PAGE_CLIENT, "accept-language": "de-CH, de;q=0.9, en;q=0.5" },
    });
    expect(german.headers.get("content-language")).toBe("de");
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain("Zahlung an");
    expect(german.body).toContain(">1.234,50</span>");
    const japanese = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}&lang=ja`, {
      headers: { ...PAGE_CLIENT, "accept-language": "de" },
    });
    expect(japanese.body).toContain('<html lang="ja">');
    expect(japanese.body).toContain("お支払い先");
    const unknown = await call(api.baseUrl, "GET", `/gateway?payment_id=${id}`, {
      headers: { ...PAGE_CLIENT, "accept-language": "zh-CN" },
    });
    expect(unknown.body).toContain('<html lang="en">');
    expect(unknown.body).toContain(">1,234.50</span>");
    const missing = await call(
      api.baseUrl,
      "GET",
      "/gateway?payment_id=00000000-0000-4000-8000-000000000000&lang=es",
      {
        headers: PAGE_CLIENT,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("Pago no encontrado");
  });
});
