import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyWholeBatches, MigrationError, migrate, readMigrations } from "./index.js";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe("migrate", () => {
  it("has applied every migration to the template, and a second run applies nothing", async () => {
    const names = (await db.sql<{ name: string }[]>`select name from schema_migrations order by name`).map(
      (r) => r.name,
    );
    expect(names).toEqual(readMigrations().map((m) => m.name));
    expect(await migrate(db.sql)).toEqual([]);
  });

  it("refuses to run when an applied migration changed", async () => {
    const changed = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: "different" } : m));
    await expect(migrate(db.sql, changed)).rejects.toBeInstanceOf(MigrationError);
  });

  it("applies a new migration once, even from two runners at the same time", async () => {
    const extra = { name: "9999_extra.sql", sql: "create table extra_table (x int)", checksum: "x" };
    const all = [...readMigrations(), extra];
    const [a, b] = await Promise.all([migrate(db.sql, all), migrate(db.sql, all)]);
    expect([...a, ...b]).toEqual(["9999_extra.sql"]);
  });

  it("returns int8 columns as bigint", async () => {
    const [row] = await db.sql<{ n: bigint }[]>`select 9007199254740993::int8 as n`;
    expect(row?.n).toBe(9007199254740993n);
  });
});

describe("applyWholeBatches", () => {
  it("hands the effect whole batches in arrival order and lets a failing message fail alone", async () => {
    await db.sql`create table if not exists whole_batched (key text, n int, ord serial)`;
    const sizes: number[] = [];
    const apply = applyWholeBatches<{ key: string; n: number }, string>(db.sql, async (tx, messages) => {
      sizes.push(messages.length);
      if (messages.some((m) => m.n < 0)) throw new Error("bad message");
      // One statement for the whole batch, in its order.
      await tx`insert into whole_batched (key, n)
        select m.key, m.n from unnest(${messages.map((m) => m.key)}::text[], ${messages.map((m) => m.n)}::int[])
        with ordinality as m(key, n, ord) order by m.ord`;
      return messages.map(({ key, n }) => `${key}${n}`);
    });
    const messages = [
      { key: "a", n: 1 },
      { key: "b", n: 1 },
      { key: "a", n: 2 },
      { key: "b", n: -1 },
      { key: "a", n: 3 },
    ];
    const outcomes = await Promise.allSettled(messages.map((m) => apply(m)));
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : "rejected"))).toEqual([
      "a1",
      "b1",
      "a2",
      "rejected",
      "a3",
    ]);
    // The first message goes alone (nothing was being written); the rest arrive meanwhile and
    // go together, fail together, and are retried one by one.
    expect(sizes).toEqual([1, 4, 1, 1, 1, 1]);
    const rows = await db.sql<{ key: string; n: number }[]>`select key, n from whole_batched order by ord`;
    expect(rows.map((r) => `${r.key}${r.n}`)).toEqual(["a1", "b1", "a2", "a3"]);
  });
});
