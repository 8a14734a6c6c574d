import { createSql, newId, type Sql } from "@gateway/db";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { waitFor } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount, type TestAccount } from "../../test/test-account.js";
import { call, startTestApi, type TestApi } from "../../test/test-api.js";
import { generateApiKey, hashApiKey } from "./api-keys.js";

// Two replicas over one database, each with its own connection pool and so its own LISTEN
// connection, as two processes would have.
let a: TestApi;
let b: TestApi;
let bSql: Sql;
let catcher: MailCatcher;
let owner: TestAccount;
beforeAll(async () => {
  catcher = await createMailCatcher();
  a = await startTestApi({ SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" });
  bSql = createSql({ url: a.db.url, max: 4 });
  b = await startTestApi(
    { SMTP_URL: catcher.smtpUrl, TRUSTED_PROXIES: "127.0.0.1" },
    { db: { ...a.db, sql: bSql }, testBus: a.testBus, signer: a.signer },
  );
  owner = await createTestAccount(a.baseUrl, catcher);
});
afterAll(async () => {
  await b.close();
  await bSql.end();
  await a.close();
  await catcher.close();
});

const status = async (api: TestApi, key: string) =>
  (await call(api.baseUrl, "GET", "/payments", { headers: { "x-api-key": key } })).status;
const create = async (api: TestApi, key: string) =>
  call(api.baseUrl, "POST", "/payments", {
    headers: { "x-api-key": key },
    body: { amount: 5, currency: "USD" },
  });

/**
 * A replica that did not make a change hears of it by PostgreSQL's notification, which reaches its
 * LISTEN connection on its own socket: a request on another socket can be served first. So it
 * refuses the key as soon as the notification arrives, within this bound; the replica that made
 * the change empties its own cache before answering, and refuses at once.
 */
const NOTIFIED_WITHIN_MS = 2_000;
async function refusedOnceNotified(api: TestApi, key: string) {
  await waitFor(async () => (await status(api, key)) === 401, {
    what: "the replica to hear of the change",
    timeoutMs: NOTIFIED_WITHIN_MS,
  });
}

/** Both replicas have answered with this key, so each holds it in its cache. */
async function warm(key: string) {
  for (const api of [a, b, a, b]) expect(await status(api, key)).toBe(200);
}

async function newKeypair() {
  const created = await call(a.baseUrl, "POST", "/api-keys", { headers: owner.auth });
  expect(created.status).toBe(201);
  return created.body as { id: string; test_key: string; live_key: string };
}

describe("API key cache across replicas", () => {
  it("a keypair deactivated on one replica is refused by the other once notified, and comes back", async () => {
    const keys = await newKeypair();
    await warm(keys.test_key);
    await warm(keys.live_key);
    const off = await call(a.baseUrl, "POST", `/api-keys/${keys.id}/deactivate`, { headers: owner.auth });
    expect(off.body.active).toBe(false);
    await refusedOnceNotified(b, keys.test_key);
    const refused = await create(b, keys.test_key);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ type: "authentication_error", code: "api_key_invalid" });
    expect(await status(b, keys.live_key)).toBe(401);
    expect(await status(a, keys.test_key)).toBe(401);

    const on = await call(b.baseUrl, "POST", `/api-keys/${keys.id}/activate`, { headers: owner.auth });
    expect(on.body.active).toBe(true);
    expect((await create(a, keys.test_key)).status).toBe(201);
    expect(await status(b, keys.live_key)).toBe(200);
  });

  it("a keypair deactivated straight in PostgreSQL is refused by both once notified", async () => {
    const keys = await newKeypair();
    await warm(keys.test_key);
    await a.db.sql`update api_keypairs set active = false where id = ${keys.id}`;
    await refusedOnceNotified(a, keys.test_key);
    await refusedOnceNotified(b, keys.test_key);
    expect(await status(a, keys.test_key)).toBe(401);
    expect(await status(b, keys.test_key)).toBe(401);
  });

  it("after its LISTEN connection is killed, a replica listens again and still sees changes", async () => {
    const keys = await newKeypair();
    await warm(keys.test_key);
    const listeners = () => a.db.sql<{ pid: number }[]>`
      select pid from pg_stat_activity
      where datname = current_database() and state = 'idle' and query like 'listen "api_keypairs"%'`;
    const before = (await listeners()).map((r) => r.pid);
    expect(before).toHaveLength(2);
    await a.db.sql`select pg_terminate_backend(pid) from pg_stat_activity where pid in ${a.db.sql(before)}`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const now = (await listeners()).map((r) => r.pid);
      if (now.length === 2 && now.every((pid) => !before.includes(pid))) break;
      if (Date.now() > deadline) throw new Error("the replicas did not LISTEN again");
      await new Promise((r) => setTimeout(r, 50));
    }
    await warm(keys.test_key);
    await call(b.baseUrl, "POST", `/api-keys/${keys.id}/deactivate`, { headers: owner.auth });
    expect(await status(b, keys.test_key)).toBe(401);
    await refusedOnceNotified(a, keys.test_key);
    expect(await status(a, keys.test_key)).toBe(401);
  });

  it("does not remember unknown keys: a key refused before its keypair exists works once it does", async () => {
    const key = generateApiKey("test");
    expect(await status(b, key)).toBe(401);
    // Written straight to the table: an insert notifies nobody, nothing needs forgetting.
    await a.db
      .sql`insert into api_keypairs (id, merchant_id, test_key_hash, test_key_prefix, live_key_hash, live_key_prefix)
      values (${newId("key")}, ${owner.merchantId}, ${hashApiKey(key)}, 'gw_test_…', ${hashApiKey(generateApiKey("live"))}, 'gw_live_…')`;
    expect(await status(b, key)).toBe(200);
  });
});
