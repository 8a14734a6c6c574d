import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, type LocalPostgres, startPostgres } from "@gateway/local-infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql } from "./client.js";

// A PostgreSQL of its own, so this file can stop and start it.
let dir: string;
let port: number;
let pg: LocalPostgres;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "gw-db-client-"));
  port = await freePort();
  pg = await startPostgres({ dataDir: path.join(dir, "pg"), port });
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("createSql across a PostgreSQL restart", () => {
  it("a query issued while the server is down waits for it and then succeeds", async () => {
    const sql = createSql({ url: pg.url, max: 2, connectRetryMs: 30_000 });
    try {
      expect((await sql<{ n: number }[]>`select 1 as n`)[0]?.n).toBe(1);
      await pg.stop();
      let settled = false;
      const pending = sql<{ n: number }[]>`select 2 as n`.finally(() => {
        settled = true;
      });
      await new Promise((r) => setTimeout(r, 1000));
      expect(settled).toBe(false);
      pg = await startPostgres({ dataDir: path.join(dir, "pg"), port });
      expect((await pending)[0]?.n).toBe(2);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 120_000);

  it("fails with the refusal once the retry window has passed", async () => {
    const closedPort = await freePort();
    const sql = createSql({
      url: `postgres://postgres@127.0.0.1:${closedPort}/postgres`,
      max: 1,
      connectRetryMs: 500,
    });
    try {
      const started = Date.now();
      await expect(sql`select 1`).rejects.toMatchObject({ code: "ECONNREFUSED" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
