import { GatewayError } from "@gateway/errors";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createSessionTokens } from "./session-token.js";

const SECRET = "session-secret-session-secret-0123456";

/** Runs the middleware once and returns what it passed to next(). */
async function check(tokens: ReturnType<typeof createSessionTokens>, authorization?: string) {
  const res = { locals: {} } as Response;
  const req = { headers: authorization ? { authorization } : {} } as Request;
  const passed = await new Promise<unknown>((resolve) => {
    void tokens.require(req, res, resolve);
  });
  return { passed, session: res.locals.session as { merchantId: string } | undefined };
}

describe("session tokens", () => {
  it("accepts its own token and names the merchant", async () => {
    const tokens = createSessionTokens({ secret: SECRET, ttlSeconds: 60, merchantExists: async () => true });
    const { passed, session } = await check(tokens, `Bearer ${await tokens.issue("mer_1")}`);
    expect(passed).toBeUndefined();
    expect(session).toEqual({ merchantId: "mer_1" });
  });

  it("refuses a token of another secret, a missing header and a deleted merchant as 401s", async () => {
    const tokens = createSessionTokens({ secret: SECRET, ttlSeconds: 60, merchantExists: async () => false });
    const other = createSessionTokens({ secret: `${SECRET}x`, ttlSeconds: 60 });
    const codes = [
      (await check(tokens, `Bearer ${await other.issue("mer_1")}`)).passed,
      (await check(tokens)).passed,
      (await check(tokens, `Bearer ${await tokens.issue("mer_gone")}`)).passed,
    ].map((e) => (e as GatewayError).code);
    expect(codes).toEqual(["token_invalid", "token_missing", "token_invalid"]);
  });

  it("lets a database failure through as itself, not as a bad token", async () => {
    const down = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const tokens = createSessionTokens({
      secret: SECRET,
      ttlSeconds: 60,
      merchantExists: async () => {
        throw down;
      },
      unavailableRetryMs: 0,
    });
    const { passed } = await check(tokens, `Bearer ${await tokens.issue("mer_1")}`);
    expect(passed).toBe(down);
    expect(passed).not.toBeInstanceOf(GatewayError);
  });

  /** Tokens whose merchant check answers `answer` on its n-th call (from 1), counting the calls. */
  function askedTokens(answer: (n: number) => boolean) {
    const counter = { asked: 0 };
    const tokens = createSessionTokens({
      secret: SECRET,
      ttlSeconds: 60,
      merchantExists: async () => answer(++counter.asked),
    });
    return { tokens, counter };
  }

  it("waits out a database restart: the merchant's check is asked again, the request passes", async () => {
    // What a restart looks like to postgres.js (chaos run, 2026-11-29: a 503 on POST /payouts).
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const { tokens, counter } = askedTokens((n) => {
      if (n < 3) throw reset;
      return true;
    });
    const { passed, session } = await check(tokens, `Bearer ${await tokens.issue("mer_1")}`);
    expect(passed).toBeUndefined();
    expect(session).toEqual({ merchantId: "mer_1" });
    expect(counter.asked).toBe(3);
  });

  it("does not ask again after an error that is not the database being away", async () => {
    const bug = new Error("something else");
    const { tokens, counter } = askedTokens(() => {
      throw bug;
    });
    const { passed } = await check(tokens, `Bearer ${await tokens.issue("mer_1")}`);
    expect(passed).toBe(bug);
    expect(counter.asked).toBe(1);
  });
});
