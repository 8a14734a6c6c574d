import { describe, expect, it } from "vitest";
import { ERROR_CODES, errorBody, GatewayError, isErrorCode } from "./index.js";

describe("GatewayError", () => {
  it("maps a code to its status, type and documented body", () => {
    const err = new GatewayError("amount_invalid", { param: "amount" });
    expect(err.status).toBe(400);
    expect(err.toBody()).toEqual({
      error: {
        type: "invalid_request_error",
        code: "amount_invalid",
        message: ERROR_CODES.amount_invalid.message,
        param: "amount",
      },
    });
  });

  it("keeps the cause and omits param when there is none", () => {
    const cause = new Error("db down");
    const err = new GatewayError("service_unavailable", { cause });
    expect(err.cause).toBe(cause);
    expect(err.toBody().error).not.toHaveProperty("param");
    expect(err.status).toBe(503);
  });

  it("uses the seed's statuses for authentication and rate limits", () => {
    expect(errorBody("api_key_missing").error.type).toBe("authentication_error");
    expect(new GatewayError("api_key_invalid").status).toBe(401);
    expect(new GatewayError("rate_limited").status).toBe(429);
    expect(new GatewayError("rate_limited").type).toBe("rate_limit_error");
  });

  it("has a closed set of codes with 4xx for client faults and 5xx only for ours", () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(isErrorCode(code)).toBe(true);
      if (spec.type === "api_error") expect(spec.status).toBeGreaterThanOrEqual(500);
      else expect(spec.status).toBeLessThan(500);
    }
    expect(isErrorCode("made_up")).toBe(false);
    expect(isErrorCode("toString")).toBe(false);
  });
});

describe("docs/errors.md", () => {
  it("documents every code with its status", async () => {
    const { readFile } = await import("node:fs/promises");
    const doc = await readFile(new URL("../../../docs/errors.md", import.meta.url), "utf8");
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(doc, code).toContain(`| \`${code}\` | ${spec.status} |`);
    }
  });
});
