// Every dashboard route against every role, and every merchant API route against a key without
// its scope, through the mounted app: a route added without its row in permissions.ts fails here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addTestMember, createTestMerchant, type TestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { MOUNTED, type OperationSpec } from "../http/operation.js";
import { ROLE_RULES, ROLES, type Role, routeKey, SCOPE_RULES, SCOPES } from "./permissions.js";

let api: TestApi;
let merchant: TestMerchant;
const auth = {} as Record<Role, Record<string, string>>;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createTestMerchant(api.db.sql);
  for (const role of ROLES) {
    const userId =
      role === "owner" ? merchant.ownerId : await addTestMember(api.db.sql, merchant.merchantId, role);
    auth[role] = { authorization: `Bearer ${await api.deps.sessions.issue(userId)}` };
  }
});
afterAll(async () => {
  await api?.close();
});

/** A concrete path for an operation's template: parameters get values no object has. */
function concrete(path: string): string {
  return path
    .replace("{chain}", "solana")
    .replace("{address}", "11111111111111111111111111111111")
    .replace(/\{\w+\}/g, "nope_0");
}

/** The routes a session (`bearer`) or a key (`apiKey`) may call: a route taking either is both. */
const mounted = (auth: "bearer" | "apiKey") =>
  [...MOUNTED].filter((op) => op.auth === auth || op.auth === "apiKeyOrBearer");

async function send(op: OperationSpec, headers: Record<string, string>) {
  return call(api.baseUrl, op.method.toUpperCase(), concrete(op.path), {
    headers,
    ...(op.method === "get" || op.method === "delete" ? {} : { body: {} }),
  });
}

describe("dashboard roles (ROLE_RULES)", () => {
  it("has a rule for every dashboard route the app serves, and none for a route it does not", () => {
    const routes = mounted("bearer").map(routeKey);
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((key) => !(key in ROLE_RULES))).toEqual([]);
    expect(Object.keys(ROLE_RULES).filter((key) => !routes.includes(key))).toEqual([]);
  });

  it("lets each role through exactly the routes its rule allows, and refuses the rest with 403", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const op of mounted("bearer")) {
      const key = routeKey(op);
      for (const role of ROLES) {
        const res = await send(op, auth[role]);
        const refused = res.status === 403 && res.body?.error?.code === "permission_denied";
        if (refused) expect(res.body.error.type).toBe("invalid_request_error");
        expect(res.status, `${role} ${key}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
        outcomes.push(`${role} ${key} ${refused ? "refused" : "allowed"}`);
        expected.push(`${role} ${key} ${ROLE_RULES[key]!.includes(role) ? "allowed" : "refused"}`);
      }
    }
    expect(outcomes).toEqual(expected);
  });

  it("follows the product's roles: viewers read only, developers stay out of payouts and the team", () => {
    const allowed = (role: Role) => Object.keys(ROLE_RULES).filter((k) => ROLE_RULES[k]!.includes(role));
    const selfService = (k: string) =>
      k.startsWith("POST /auth/") || k.startsWith("DELETE /auth/") || k.startsWith("DELETE /sessions");
    expect(allowed("viewer").filter((k) => !k.startsWith("GET ") && !selfService(k))).toEqual([]);
    expect(allowed("developer").filter((k) => /payout|team|audit/.test(k))).toEqual([]);
    expect(allowed("admin").filter((k) => !allowed("owner").includes(k))).toEqual([]);
    expect(Object.keys(ROLE_RULES).filter((k) => !ROLE_RULES[k]!.includes("owner"))).toEqual([]);
  });
});

describe("restricted API keys (SCOPE_RULES)", () => {
  it("has a scope for every merchant API route the app serves", () => {
    const routes = mounted("apiKey").map(routeKey);
    expect(routes.length).toBeGreaterThan(5);
    expect(routes.filter((key) => !(key in SCOPE_RULES))).toEqual([]);
  });

  it("refuses a key without the route's scope with 403 permission_denied, and lets one with it through", async () => {
    for (const op of mounted("apiKey")) {
      const scope = SCOPE_RULES[routeKey(op)]!;
      const without = await call(api.baseUrl, "POST", "/api-keys", {
        headers: auth.owner,
        body: { scopes: SCOPES.filter((s) => s !== scope) },
      });
      const only = await call(api.baseUrl, "POST", "/api-keys", {
        headers: auth.owner,
        body: { scopes: [scope] },
      });
      expect(only.body.scopes).toEqual([scope]);
      const refused = await send(op, { "x-api-key": without.body.test_key });
      expect(refused.status, routeKey(op)).toBe(403);
      expect(refused.body.error).toMatchObject({ type: "invalid_request_error", code: "permission_denied" });
      const allowed = await send(op, { "x-api-key": only.body.test_key });
      expect(allowed.body?.error?.code, routeKey(op)).not.toBe("permission_denied");
      expect(allowed.status).toBeLessThan(500);
    }
  });

  it("gives a keypair made without scopes (and every keypair from before scopes) every scope", async () => {
    for (const op of mounted("apiKey")) {
      const res = await send(op, { "x-api-key": merchant.testKey });
      expect(res.body?.error?.code, routeKey(op)).not.toBe("permission_denied");
    }
    const listed = await call(api.baseUrl, "GET", "/api-keys", { headers: auth.viewer });
    expect(listed.body.data.find((k: { id: string }) => k.id === merchant.keypairId).scopes).toBeNull();
  });

  it("refuses an unknown scope as a 400", async () => {
    const res = await call(api.baseUrl, "POST", "/api-keys", {
      headers: auth.owner,
      body: { scopes: ["payouts:write"] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe("scopes[0]");
  });
});
