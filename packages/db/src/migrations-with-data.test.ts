import { createDatabaseBefore, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type Sql } from "./index.js";

// The write path's migrations (2200 on) run on a database that already holds a day's traffic in
// the schema before them: what was published stays published, what was not goes out once.
let db: TestDatabase;
let sql: Sql;

beforeAll(async () => {
  db = await createDatabaseBefore("2200");
  sql = db.sql;
});
afterAll(() => db?.drop());

describe("the write path's migrations on a database with data", () => {
  it("start the relays' cursors past what was published and before what was not", async () => {
    await sql`insert into merchants (id, email, business_name, password_hash)
      values ('mer_1', 'shop@example.test', 'Shop', 'x')`;
    await sql`insert into events (id, merchant_id, mode, type, data) values
      ('evt_old1', 'mer_1', 'test', 'payment.created', '{}'),
      ('evt_old2', 'mer_1', 'test', 'payment.completed', '{}')`;
    // The old relay had published the first event's row and the command, not the second event's.
    await sql`insert into outbox (id, subject, payload, published_at) values
      ('evt_old1', 't.events.payment.created', '{}', now()),
      ('cmd_sent', 't.cmd.payment.simulate', '{}', now()),
      ('evt_old2', 't.events.payment.completed', '{}', null),
      ('cmd_unsent', 't.cmd.payment.simulate', '{}', null)`;

    const applied = await migrate(sql);
    expect(applied[0]).toBe("2200_events_are_the_outbox.sql");

    // Old events went out through their outbox rows, which keep that job until published.
    expect(await ids(sql`select id from events_pending`)).toEqual([]);
    expect(await ids(sql`select id from outbox_pending order by seq`)).toEqual(["evt_old2", "cmd_unsent"]);
    // What is written from now on is followed by the new cursors.
    await sql`insert into events (id, merchant_id, mode, type, data)
      values ('evt_new', 'mer_1', 'test', 'payment.created', '{}')`;
    await sql`insert into outbox (id, subject, payload) values ('cmd_new', 't.cmd.payment.simulate', '{}')`;
    expect(await ids(sql`select id from events_pending`)).toEqual(["evt_new"]);
    expect(await ids(sql`select id from outbox_pending order by xid, seq`)).toEqual([
      "evt_old2",
      "cmd_unsent",
      "cmd_new",
    ]);
  });
});

async function ids(rows: Promise<{ id: string }[]>): Promise<string[]> {
  return (await rows).map((r) => r.id);
}
