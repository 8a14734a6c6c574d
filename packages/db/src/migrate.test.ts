import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleOnce, MigrationError, migrate, newId, readMigrations } from "./index.js";

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

describe("handleOnce", () => {
  it("runs an effect once per (consumer, message id), atomically with the record", async () => {
    await db.sql`create table if not exists counter (n int)`;
    const id = newId("msg");
    const first = await handleOnce(db.sql, "c1", id, (tx) => tx`insert into counter values (1)`);
    const second = await handleOnce(db.sql, "c1", id, (tx) => tx`insert into counter values (1)`);
    const otherConsumer = await handleOnce(db.sql, "c2", id, (tx) => tx`insert into counter values (1)`);
    expect([first.ran, second.ran, otherConsumer.ran]).toEqual([true, false, true]);
    const [{ count } = { count: 0n }] = await db.sql<{ count: bigint }[]>`select count(*) from counter`;
    expect(count).toBe(2n);
  });

  it("records nothing when the effect fails, so a redelivery runs it again", async () => {
    const id = newId("msg");
    await expect(
      handleOnce(db.sql, "c1", id, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const retry = await handleOnce(db.sql, "c1", id, async () => "done");
    expect(retry).toEqual({ ran: true, result: "done" });
  });
});

describe("newId", () => {
  it("prefixes and randomises", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId("evt")));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9A-Za-z]{22}$/);
  });
});
