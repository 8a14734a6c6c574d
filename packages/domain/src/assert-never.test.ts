import { describe, expect, it } from "vitest";
import { assertNever } from "./assert-never.js";

describe("assertNever", () => {
  it("throws, naming what slipped through, bigints included", () => {
    const value = { type: "mystery", amount: 5n } as never;
    expect(() => assertNever(value, "payment message")).toThrow(
      'unexpected payment message: {"type":"mystery","amount":"5n"}',
    );
  });
});
