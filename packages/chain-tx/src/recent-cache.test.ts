import { describe, expect, it } from "vitest";
import { recentCache } from "./recent-cache.js";

describe("recentCache", () => {
  it("keeps at most its size, dropping the least recently used, so a key in use stays", () => {
    const cache = recentCache<number>(3);
    cache.remember("vault", 0);
    for (let i = 1; i <= 1000; i++) {
      // The vault is read between one-off deposit keys, as every sweep reads it.
      expect(cache.get("vault")).toBe(0);
      cache.remember(`deposit-${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(3);
    }
    expect(cache.get("vault")).toBe(0);
    expect(cache.get("deposit-1000")).toBe(1000);
    expect(cache.get("deposit-999")).toBe(999);
    expect(cache.get("deposit-998")).toBeUndefined();
  });

  it("a key remembered again is replaced, not counted twice", () => {
    const cache = recentCache<string>(2);
    cache.remember("a", "1");
    cache.remember("b", "2");
    cache.remember("a", "3");
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBe("3");
    expect(cache.get("b")).toBe("2");
  });
});
