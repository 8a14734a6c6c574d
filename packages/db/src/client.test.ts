import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, type LocalPostgres, startPostgres } from "@gateway/local-infra";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSql } from "./client.js";
import { retryWhileUnavailable } from "./retry.js";

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

  it("a connection whose backend died fails its next query instead of crashing the process", async () => {
    // postgres.js 3.4.9 threw from a setImmediate here (porsager/postgres#1208), killing the
    // service; packages/db/patches/postgres@3.4.9.patch makes it a CONNECTION_CLOSED rejection.
    const sql = createSql({ url: pg.url, max: 2 });
    try {
      const reserved = await sql.reserve();
      const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await sql`select pg_terminate_backend(${row!.pid})`;
      await new Promise((r) => setTimeout(r, 200));
      await expect(reserved`select 1`).rejects.toMatchObject({ code: "CONNECTION_CLOSED" });
      reserved.release();
      expect((await sql<{ n: number }[]>`select 3 as n`)[0]?.n).toBe(3);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("retryWhileUnavailable repeats work cut off by a restart, and nothing else", async () => {
    // Connection retry off: the restart must surface as errors for retryWhileUnavailable to see.
    const sql = createSql({ url: pg.url, max: 2, connectRetryMs: 0 });
    try {
      await sql`create table if not exists retried (id int primary key)`;
      await pg.stop();
      setTimeout(() => {
        void startPostgres({ dataDir: path.join(dir, "pg"), port }).then((next) => {
          pg = next;
        });
      }, 1000);
      const attempts: number[] = [];
      await retryWhileUnavailable(async () => {
        attempts.push(Date.now());
        await sql`insert into retried (id) values (1) on conflict do nothing`;
      }, 60_000);
      expect(attempts.length).toBeGreaterThan(1);
      expect((await sql<{ n: bigint }[]>`select count(*) as n from retried`)[0]?.n).toBe(1n);
      let calls = 0;
      await expect(
        retryWhileUnavailable(async () => {
          calls++;
          await sql`select 1/0`;
        }),
      ).rejects.toMatchObject({ code: "22012" });
      expect(calls).toBe(1);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 120_000);
});
