import { describe, expect, it } from "vitest";
import { idFromBytes, newId } from "./ids.js";

describe("newId", () => {
  it("never repeats, across many refills of its random pool", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("pay"));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 500)) expect(id).toMatch(/^pay_[0-9a-zA-Z]{22}$/);
  });

  it("takes lengths longer than its pool straight from the generator", () => {
    expect(newId("k", 5000)).toMatch(/^k_[0-9a-zA-Z]{5000}$/);
  });

  it("makes the same id from the same bytes", () => {
    const bytes = Uint8Array.from([0, 61, 62, 255]);
    expect(idFromBytes("x", bytes)).toBe(idFromBytes("x", bytes));
    expect(idFromBytes("x", bytes)).toBe("x_0Z07");
  });
});
