import { GatewayError } from "@gateway/errors";
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createSessionTokens, type SessionPrincipal, type SessionStore } from "./session-token.js";

const SECRET = "session-secret-session-secret-0123456";

const PRINCIPAL: SessionPrincipal = {
  merchantId: "mer_1",
  userId: "usr_1",
  sessionId: "ses_1",
  email: "a@example.test",
  role: "owner",
  secondFactorSetupRequired: false,
};

/** A store holding one session, whose lookup answers `find(n)` on its n-th call (from 1). */
function storeAnswering(find: (n: number) => boolean) {
  const counter = { asked: 0 };
  const store: SessionStore = {
    open: async () => "ses_1",
    find: async (sessionId, userId) =>
      find(++counter.asked) && sessionId === "ses_1" && userId === "usr_1" ? PRINCIPAL : undefined,
  };
  return { store, counter };
}

/** Runs the middleware once and returns what it passed to next(). */
async function check(tokens: ReturnType<typeof createSessionTokens>, authorization?: string) {
  const res = { locals: {} } as Response;
  const req = { headers: authorization ? { authorization } : {} } as Request;
  const passed = await new Promise<unknown>((resolve) => {
    void tokens.require(req, res, resolve);
  });
  return { passed, session: res.locals.session as SessionPrincipal | undefined };
}

describe("session tokens", () => {
  it("accepts its own token and names the member and the session", async () => {
    const tokens = createSessionTokens({
      secret: SECRET,
      ttlSeconds: 60,
      store: storeAnswering(() => true).store,
    });
    const { passed, session } = await check(tokens, `Bearer ${await tokens.issue("usr_1")}`);
    expect(passed).toBeUndefined();
    expect(session).toEqual(PRINCIPAL);
  });

  it("refuses a token of another secret, a missing header and a revoked session as 401s", async () => {
    const tokens = createSessionTokens({
      secret: SECRET,
      ttlSeconds: 60,
      store: storeAnswering(() => false).store,
    });
    const other = createSessionTokens({
      secret: `${SECRET}x`,
      ttlSeconds: 60,
      store: storeAnswering(() => true).store,
    });
    const codes = [
      (await check(tokens, `Bearer ${await other.issue("usr_1")}`)).passed,
      (await check(tokens)).passed,
      (await check(tokens, `Bearer ${await tokens.issue("usr_1")}`)).passed,
    ].map((e) => (e as GatewayError).code);
    expect(codes).toEqual(["token_invalid", "token_missing", "token_invalid"]);
  });

  it("lets a database failure through as itself, not as a bad token", async () => {
    const down = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const { store } = storeAnswering(() => {
      throw down;
    });
    const tokens = createSessionTokens({ secret: SECRET, ttlSeconds: 60, store, unavailableRetryMs: 0 });
    const { passed } = await check(tokens, `Bearer ${await tokens.issue("usr_1")}`);
    expect(passed).toBe(down);
    expect(passed).not.toBeInstanceOf(GatewayError);
  });

  it("waits out a database restart: the session's check is asked again, the request passes", async () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const { store, counter } = storeAnswering((n) => {
      if (n < 3) throw reset;
      return true;
    });
    const tokens = createSessionTokens({ secret: SECRET, ttlSeconds: 60, store });
    const { passed, session } = await check(tokens, `Bearer ${await tokens.issue("usr_1")}`);
    expect(passed).toBeUndefined();
    expect(session).toEqual(PRINCIPAL);
    expect(counter.asked).toBe(3);
  });

  it("does not ask again after an error that is not the database being away", async () => {
    const bug = new Error("something else");
    const { store, counter } = storeAnswering(() => {
      throw bug;
    });
    const tokens = createSessionTokens({ secret: SECRET, ttlSeconds: 60, store });
    const { passed } = await check(tokens, `Bearer ${await tokens.issue("usr_1")}`);
    expect(passed).toBe(bug);
    expect(counter.asked).toBe(1);
  });
});
