// The price service against the local price server (test/price-server), which answers in each
// feed's real format: every source read for real over HTTP, nothing of ours mocked.
import { createLogger } from "@gateway/logging";
import { createPriceServer, type PriceServer } from "@gateway/price-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPriceService, type PriceService } from "./price-service.js";
import { createCoinbaseSource } from "./sources/coinbase.js";
import { createKrakenSource } from "./sources/kraken.js";
import { createPythHermesSource } from "./sources/pyth-hermes.js";

let server: PriceServer;
const log = createLogger({ name: "prices-test", level: "silent" });

function service(options: { maxAgeSeconds?: number; now?: () => number } = {}): PriceService {
  return createPriceService({
    sources: [
      createPythHermesSource({ baseUrl: server.sourceUrls.pyth }),
      createCoinbaseSource({ baseUrl: server.sourceUrls.coinbase }),
      createKrakenSource({ baseUrl: server.sourceUrls.kraken }),
    ],
    maxAgeSeconds: options.maxAgeSeconds ?? 60,
    maxDeviationBps: 100,
    refreshMs: 60_000,
    log,
    ...(options.now ? { now: options.now } : {}),
  });
}

async function priced(options?: Parameters<typeof service>[0]) {
  const prices = service(options);
  await prices.refresh();
  return prices;
}

beforeAll(async () => {
  server = await createPriceServer({ prices: { SOL: "150.00", SUI: "3.50" } });
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => server.reset());

describe("price service on the local feeds", () => {
  it("reads Pyth, Coinbase and Kraken in their formats and takes the median", async () => {
    server.setSource("pyth", { usd: { SOL: "150.30" } });
    server.setSource("kraken", { usd: { SOL: "150.10" } });
    const prices = await priced();
    const sol = prices.price("SOL");
    expect(sol).toMatchObject({ ok: true, price: { micros: 150_100_000n } });
    expect(sol.ok && sol.price.sources.map((s) => [s.source, s.micros])).toEqual([
      ["pyth", 150_300_000n],
      ["coinbase", 150_000_000n],
      ["kraken", 150_100_000n],
    ]);
    expect(prices.price("SUI")).toMatchObject({ ok: true, price: { micros: 3_500_000n } });
    expect(prices.status().every((s) => s.error === null)).toBe(true);
  });

  it("uses Pyth's publish time for freshness: a lagging Pyth is stale, the other two still price", async () => {
    server.setSource("pyth", { lagSeconds: 120 });
    const prices = await priced();
    const sol = prices.price("SOL");
    expect(sol.ok && sol.price.sources.map((s) => s.source)).toEqual(["coinbase", "kraken"]);
  });

  it("goes on with two sources when one is down", async () => {
    server.setSource("coinbase", { mode: "down" });
    const prices = await priced();
    expect(prices.price("SOL")).toMatchObject({ ok: true, price: { micros: 150_000_000n } });
    expect(prices.status().find((s) => s.source === "coinbase")?.error).toMatch(/HTTP 503/);
    expect(prices.failures("coinbase")).toBe(1);
  });

  it("refuses every price when all sources are down", async () => {
    for (const name of ["pyth", "coinbase", "kraken"] as const) server.setSource(name, { mode: "down" });
    const prices = await priced();
    expect(prices.price("SOL")).toEqual({ ok: false, reason: "0 fresh source(s) for SOL, 2 needed" });
    expect(prices.price("SUI").ok).toBe(false);
  });

  it("refuses once readings age past the maximum, when the sources stopped answering", async () => {
    let now = Date.now();
    const prices = await priced({ now: () => now });
    expect(prices.price("SOL").ok).toBe(true);
    for (const name of ["pyth", "coinbase", "kraken"] as const) server.setSource(name, { mode: "down" });
    await prices.refresh();
    // The last good readings still stand for a while…
    expect(prices.price("SOL").ok).toBe(true);
    now += 61_000;
    // …and are refused once older than PRICE_MAX_AGE_SECONDS.
    expect(prices.price("SOL").ok).toBe(false);
  });

  it.each([
    ["garbage (not JSON)", { mode: "garbage" as const }],
    ["a negative price", { usd: { SOL: "-150.00", SUI: "-3.50" } }],
    ["a zero price", { usd: { SOL: "0", SUI: "0.00" } }],
    ["an absurd price", { usd: { SOL: "99999999999", SUI: "1e308" } }],
    ["words", { usd: { SOL: "one fifty", SUI: "NaN" } }],
  ])("refuses a source answering %s, and prices from the other two", async (_label, patch) => {
    for (const name of ["pyth", "coinbase", "kraken"] as const) {
      server.reset();
      server.setSource(name, patch);
      const prices = await priced();
      const sol = prices.price("SOL");
      expect(sol).toMatchObject({ ok: true, price: { micros: 150_000_000n } });
      expect(sol.ok && sol.price.sources.map((s) => s.source)).not.toContain(name);
      expect(prices.status().find((s) => s.source === name)?.error).toBeTruthy();
    }
  });

  it("refuses when two sources are left and they disagree beyond the deviation", async () => {
    server.setSource("pyth", { mode: "down" });
    server.setSource("kraken", { usd: { SOL: "152.00" } });
    const prices = await priced();
    expect(prices.price("SOL")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/disagree by 133 bps/),
    });
    // SUI still agrees.
    expect(prices.price("SUI").ok).toBe(true);
  });

  it("answers from memory: asking for a price never reaches a feed", async () => {
    const prices = await priced();
    const before =
      server.requestCount("pyth") + server.requestCount("coinbase") + server.requestCount("kraken");
    for (let i = 0; i < 100; i++) prices.price(i % 2 ? "SOL" : "SUI");
    const after =
      server.requestCount("pyth") + server.requestCount("coinbase") + server.requestCount("kraken");
    expect(after).toBe(before);
  });

  it("follows a moved price on the next refresh, in the background", async () => {
    const prices = createPriceService({
      sources: [
        createPythHermesSource({ baseUrl: server.sourceUrls.pyth }),
        createCoinbaseSource({ baseUrl: server.sourceUrls.coinbase }),
      ],
      maxAgeSeconds: 60,
      maxDeviationBps: 100,
      refreshMs: 50,
      log,
    });
    await prices.start();
    try {
      expect(prices.price("SOL")).toMatchObject({ ok: true, price: { micros: 150_000_000n } });
      server.setPrice("SOL", "162.40");
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const sol = prices.price("SOL");
        if (sol.ok && sol.price.micros === 162_400_000n) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(prices.price("SOL")).toMatchObject({ ok: true, price: { micros: 162_400_000n } });
    } finally {
      await prices.stop();
    }
  });
});
