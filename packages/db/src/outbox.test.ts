import { createTestDatabase, singleConnection, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "./ids.js";
import { enqueueOutbox } from "./outbox.js";

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
});
