import { describe, expect, it } from "vitest";
import { createHeliusRegistry } from "./address-registry.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Helius' webhook API in memory: list, create, edit (which replaces the whole list). `delays`
 * holds each edit's time in flight, in call order, so a test can make an early edit slow.
 */
function fakeHelius(delays: number[] = []) {
  const hooks = new Map<string, { webhookID: string; webhookURL: string; accountAddresses: string[] }>();
  const calls: { method: string; at: number; addresses?: string[] }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let edits = 0;
  const fetch = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const url = new URL(String(input));
    const method = init?.method ?? "GET";
    const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : undefined;
    const addresses = body?.["accountAddresses"] as string[] | undefined;
    calls.push({ method, at: performance.now(), ...(addresses ? { addresses } : {}) });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (method === "GET") return Response.json([...hooks.values()]);
      // Every write reads its body at once and applies it after its delay, as a slow request does.
      const delay = delays[edits++] ?? 0;
      await sleep(delay);
      if (method === "POST") {
        const hook = {
          webhookID: `wh${hooks.size + 1}`,
          webhookURL: String(body?.["webhookURL"]),
          accountAddresses: addresses ?? [],
        };
        hooks.set(hook.webhookID, hook);
        return Response.json(hook);
      }
      const id = url.pathname.split("/").at(-1)!;
      const hook = hooks.get(id)!;
      hook.accountAddresses = addresses ?? [];
      return Response.json(hook);
    } finally {
      inFlight--;
    }
  }) as typeof globalThis.fetch;
  return { fetch, hooks, calls, maxInFlight: () => maxInFlight };
}

const options = {
  baseUrl: "https://api.helius.example",
  webhookUrl: "https://watcher.example/webhooks/solana",
  authHeader: "Bearer 0123456789abcdef",
};

describe("createHeliusRegistry", () => {
  it("creates the webhook once, even when the first syncs overlap", async () => {
    const helius = fakeHelius([50]);
    const registry = createHeliusRegistry({ ...options, fetch: helius.fetch, minGapMs: 0 });
    await Promise.all([registry.sync(["a"]), registry.sync(["a", "b"]), registry.sync(["a", "b", "c"])]);
    expect(helius.hooks.size).toBe(1);
    expect([...helius.hooks.values()][0]?.accountAddresses).toEqual(["a", "b", "c"]);
  });

  it("never lets an earlier list overtake a later one, and leaves the last one registered", async () => {
    // The first edit is slow and the second fast: sent together, the first would land last.
    const helius = fakeHelius([0, 80, 0, 0]);
    const registry = createHeliusRegistry({ ...options, fetch: helius.fetch, minGapMs: 0 });
    await registry.sync(["a"]);
    const earlier = registry.sync(["a", "b"]);
    await sleep(5);
    const later = registry.sync(["a", "b", "c"]);
    await Promise.all([earlier, later]);
    expect(helius.maxInFlight()).toBe(1);
    expect([...helius.hooks.values()][0]?.accountAddresses).toEqual(["a", "b", "c"]);
  });

  it("sends only the newest of the lists asked for while an edit is in flight", async () => {
    const helius = fakeHelius([0, 60]);
    const registry = createHeliusRegistry({ ...options, fetch: helius.fetch, minGapMs: 0 });
    await registry.sync(["a"]);
    const first = registry.sync(["a", "b"]);
    await sleep(5);
    const queued = [registry.sync(["a", "b", "c"]), registry.sync(["a", "b", "c", "d"])];
    await Promise.all([first, ...queued]);
    const edits = helius.calls.filter((c) => c.method === "PUT").map((c) => c.addresses);
    expect(edits).toEqual([
      ["a", "b"],
      ["a", "b", "c", "d"],
    ]);
  });

  it("spaces edits by minGapMs, but edits at once after a quiet spell", async () => {
    const helius = fakeHelius();
    const registry = createHeliusRegistry({ ...options, fetch: helius.fetch, minGapMs: 100 });
    await registry.sync(["a"]);
    const list = ["a"];
    const syncs: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      list.push(`x${i}`);
      syncs.push(registry.sync([...list]));
      await sleep(10);
    }
    await Promise.all(syncs);
    const writes = helius.calls.filter((c) => c.method !== "GET");
    // 30 syncs over ~300 ms: about one edit per 100 ms, the last one with every address.
    expect(writes.length).toBeLessThanOrEqual(6);
    // Timed at the request, a few milliseconds after the edit's start under load.
    for (let i = 1; i < writes.length; i++) {
      expect(writes[i]!.at - writes[i - 1]!.at).toBeGreaterThanOrEqual(90);
    }
    expect(writes.at(-1)?.addresses).toEqual(list);
    await sleep(150);
    const quiet = performance.now();
    await registry.sync([...list, "y"]);
    expect(helius.calls.at(-1)!.at - quiet).toBeLessThan(50);
  });
});
