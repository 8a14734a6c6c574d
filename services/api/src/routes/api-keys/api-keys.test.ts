import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount, type TestAccount } from "../../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../../test/test-api.js";

let api: TestApi;
let catcher: MailCatcher;
let owner: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  catcher = await createMailCatcher();
  api = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  owner = await createTestAccount(api.baseUrl, catcher);
  other = await createTestAccount(api.baseUrl, catcher);
});
afterAll(async () => {
  await api.close();
  await catcher.close();
});

const KEY = (mode: string) => new RegExp(`^gw_${mode}_[0-9A-Za-z]{40}$`);

describe("API keypairs", () => {
  it("generates a test and a live key, shown once, then lists them masked", async () => {
    const created = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "api_keypair", active: true });
    expect(created.body.id).toMatch(/^key_/);
    expect(created.body.test_key).toMatch(KEY("test"));
    expect(created.body.live_key).toMatch(KEY("live"));

    const list = await call(api.baseUrl, "GET", "/api-keys", { headers: owner.auth });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const [listed] = list.body.data;
    expect(listed).toEqual({
      id: created.body.id,
      object: "api_keypair",
      test_key_prefix: created.body.test_key_prefix,
      live_key_prefix: created.body.live_key_prefix,
      active: true,
      scopes: null,
      created_at: created.body.created_at,
      updated_at: created.body.updated_at,
    });
    expect(listed.test_key_prefix.startsWith("gw_test_")).toBe(true);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(created.body.test_key);
    expect(text).not.toContain(created.body.live_key);
    expect(text).not.toContain(created.body.test_key.slice(12, -4));
  });

  it("stores only hashes of the keys", async () => {
    const created = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    const rows = await api.db.sql`select * from api_keypairs where id = ${created.body.id}`;
    const dump = JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString("hex") : v));
    expect(dump).not.toContain(created.body.test_key);
    expect(dump).not.toContain(created.body.live_key);
  });

  it("a deactivated keypair gets 401 at once, both keys; reactivated it works again", async () => {
    const created = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    const { id, test_key, live_key } = created.body;
    for (const key of [test_key, live_key]) {
      expect((await call(api.baseUrl, "GET", "/payments", { headers: { "x-api-key": key } })).status).toBe(
        200,
      );
    }
    const off = await call(api.baseUrl, "POST", `/api-keys/${id}/deactivate`, { headers: owner.auth });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id, active: false });
    for (const key of [test_key, live_key]) {
      const refused = await call(api.baseUrl, "GET", "/payments", { headers: { "x-api-key": key } });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe("api_key_invalid");
    }
    const again = await call(api.baseUrl, "POST", `/api-keys/${id}/deactivate`, { headers: owner.auth });
    expect(again.body.active).toBe(false);
    const on = await call(api.baseUrl, "POST", `/api-keys/${id}/activate`, { headers: owner.auth });
    expect(on.body).toMatchObject({ id, active: true });
    expect((await call(api.baseUrl, "GET", "/payments", { headers: { "x-api-key": test_key } })).status).toBe(
      200,
    );
  });

  it("replays a deactivation sent again with the same Idempotency-Key", async () => {
    const created = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    const headers = { ...owner.auth, "idempotency-key": "deactivate-1" };
    const first = await call(api.baseUrl, "POST", `/api-keys/${created.body.id}/deactivate`, { headers });
    const second = await call(api.baseUrl, "POST", `/api-keys/${created.body.id}/deactivate`, { headers });
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });

  it("answers unknown keypairs with 404 and unknown fields with 400", async () => {
    const missing = await call(api.baseUrl, "POST", "/api-keys/key_doesnotexist/deactivate", {
      headers: owner.auth,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("resource_not_found");
    const extra = await call(api.baseUrl, "POST", "/api-keys", {
      headers: owner.auth,
      body: { mode: "live" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: "parameter_unknown", param: "mode" });
  });
});

describe("API keypairs: security", () => {
  it("one merchant can neither see nor change another's keypairs", async () => {
    const mine = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    const theirs = await call(api.baseUrl, "GET", "/api-keys", { headers: other.auth });
    expect(theirs.body.data.map((k: { id: string }) => k.id)).not.toContain(mine.body.id);
    for (const action of ["deactivate", "activate"]) {
      const res = await call(api.baseUrl, "POST", `/api-keys/${mine.body.id}/${action}`, {
        headers: other.auth,
      });
      expect(res.status).toBe(404);
    }
    const [row] = await api.db.sql<
      { active: boolean }[]
    >`select active from api_keypairs where id = ${mine.body.id}`;
    expect(row!.active).toBe(true);
  });

  it("needs a session: no token, or an API key instead of one, is 401", async () => {
    const mine = await call(api.baseUrl, "POST", "/api-keys", { headers: owner.auth });
    expect((await call(api.baseUrl, "POST", "/api-keys")).status).toBe(401);
    const withKey = await call(api.baseUrl, "GET", "/api-keys", {
      headers: { "x-api-key": mine.body.test_key },
    });
    expect(withKey.status).toBe(401);
  });
});
