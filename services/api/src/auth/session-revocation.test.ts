// A revoked session is refused by every replica at once: each request reads its session row, so
// there is no per-replica cache to hear of the change.
import { createSql, type Sql } from "@gateway/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addTestMember, createTestMerchant } from "../../test/merchant.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";

let a: TestApi;
let b: TestApi;
let bSql: Sql;
beforeAll(async () => {
  a = await startTestApi();
  bSql = createSql({ url: a.db.url, max: 4 });
  b = await startTestApi({}, { db: { ...a.db, sql: bSql }, testBus: a.testBus, signer: a.signer });
});
afterAll(async () => {
  await b.close();
  await bSql.end();
  await a.close();
});

const me = (api: TestApi, token: string) =>
  call(api.baseUrl, "GET", "/auth/me", { headers: { authorization: `Bearer ${token}` } });

describe("session revocation across replicas", () => {
  it("a session revoked on one replica is refused by the other on its very next request", async () => {
    const merchant = await createTestMerchant(a.db.sql);
    const current = await a.deps.sessions.issue(merchant.ownerId);
    const other = await a.deps.sessions.issue(merchant.ownerId);
    for (const api of [a, b]) expect((await me(api, other)).status).toBe(200);
    const sessions = await call(a.baseUrl, "GET", "/sessions", {
      headers: { authorization: `Bearer ${current}` },
    });
    const target = sessions.body.data.find((s: { current: boolean }) => !s.current);
    const revoked = await call(a.baseUrl, "DELETE", `/sessions/${target.id}`, {
      headers: { authorization: `Bearer ${current}` },
    });
    expect(revoked.status).toBe(200);
    for (const api of [b, a]) {
      const refused = await me(api, other);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ type: "authentication_error", code: "token_invalid" });
    }
    expect((await me(b, current)).status).toBe(200);
  });

  it("a removed member's and a demoted member's sessions change at once on every replica", async () => {
    const merchant = await createTestMerchant(a.db.sql);
    const owner = await a.deps.sessions.issue(merchant.ownerId);
    const adminId = await addTestMember(a.db.sql, merchant.merchantId, "admin");
    const admin = await a.deps.sessions.issue(adminId);
    const keys = () =>
      call(b.baseUrl, "POST", "/api-keys", { headers: { authorization: `Bearer ${admin}` }, body: {} });
    expect((await keys()).status).toBe(201);
    await call(a.baseUrl, "PUT", `/team/members/${adminId}`, {
      headers: { authorization: `Bearer ${owner}` },
      body: { role: "viewer" },
    });
    expect((await keys()).body.error.code).toBe("permission_denied");
    await call(a.baseUrl, "DELETE", `/team/members/${adminId}`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect((await me(b, admin)).status).toBe(401);
  });
});
