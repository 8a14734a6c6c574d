import { createTestDatabase, singleConnection, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql } from "./client.js";
import { newId } from "./ids.js";
import { enqueueOutbox } from "./outbox.js";
import { onOutboxCommitted } from "./outbox-commits.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe("enqueueOutbox", () => {
  it("writes any number of messages with one statement text, payloads exactly as given", async () => {
    const one = singleConnection(db.url);
    try {
      // A `type` and a `value` field (postgres.js's mark of a typed parameter), quotes,
      // backslashes, braces and commas (array literal syntax), non-ASCII, arrays, nulls and scalars.
      const payloads = [
        { type: "payment.completed", value: 3, data: { note: 'a "quoted", {braced} \\ back\\slash' } },
        { list: [1, "two", null, { three: [] }], text: "café ✓" },
        ["a", "top-level", "array"],
        "a bare string",
        42,
      ];
      const ids: string[] = [];
      for (const size of [1, 2, 5, 3]) {
        const messages = payloads.slice(0, size).map((payload) => ({
          id: newId("evt"),
          subject: "test.events.x",
          payload,
        }));
        ids.push(...messages.map((m) => m.id));
        await enqueueOutbox(one.sql, messages);
      }
      const rows = await db.sql<{ id: string; payload: unknown }[]>`
        select id, payload from outbox where id = any(${ids}::text[]) order by seq`;
      expect(rows.map((r) => r.id)).toEqual(ids);
      const expected = [1, 2, 5, 3].flatMap((size) => payloads.slice(0, size));
      expect(rows.map((r) => r.payload)).toEqual(expected);
      expect(await one.preparedTexts("insert into outbox")).toHaveLength(1);
    } finally {
      await one.sql.end();
    }
  });

  it("hears of this process's outbox commits once they commit, and of nothing else", async () => {
    const commits: number[] = [];
    const stop = onOutboxCommitted(db.sql, () => commits.push(Date.now()));
    const subject = "gw.test.x";
    try {
      // Alone (autocommit): told at once.
      await enqueueOutbox(db.sql, [{ id: newId("evt"), subject, payload: {} }]);
      expect(commits).toHaveLength(1);
      // In a transaction: told after its commit, once for all its rows, not when the rows are written.
      let wroteAt = 0;
      await db.sql.begin(async (tx) => {
        await enqueueOutbox(tx, [{ id: newId("evt"), subject, payload: {} }]);
        await enqueueOutbox(tx, [{ id: newId("evt"), subject, payload: {} }]);
        wroteAt = Date.now();
        expect(commits).toHaveLength(1);
        await new Promise((r) => setTimeout(r, 50));
      });
      expect(commits).toHaveLength(2);
      expect(commits[1]! - wroteAt).toBeGreaterThanOrEqual(45);
      // Rolled back, or without outbox rows: nothing to tell.
      await db.sql
        .begin(async (tx) => {
          await enqueueOutbox(tx, [{ id: newId("evt"), subject, payload: {} }]);
          throw new Error("changed my mind");
        })
        .catch(() => {});
      await db.sql.begin((tx) => tx`select 1`);
      // Another pool's commits (another process, as far as this one can tell) are the poll's.
      const other = createSql({ url: db.url, max: 1, applicationName: "other-service" });
      await enqueueOutbox(other, [{ id: newId("evt"), subject, payload: {} }]);
      await other.end();
      expect(commits).toHaveLength(2);
      // And the database no longer notifies anyone of outbox rows.
      const [trigger] = await db.sql`select 1 from pg_trigger where tgname = 'outbox_notify'`;
      expect(trigger).toBeUndefined();
    } finally {
      stop();
    }
  });
});
