// What postgres.js does when a backend dies at the wrong moment. Each case reproduces a driver
// defect that packages/db/patches/postgres@3.4.9.patch fixes; without the patch each one fails,
// and the first two take the whole process down (an unhandled rejection) in production.
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, type LocalPostgres, startPostgres } from "@gateway/local-infra";
import { gate } from "@gateway/testkit";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSql, type Sql } from "./client.js";

let dir: string;
let pg: LocalPostgres;
let admin: Sql;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "gw-db-driver-"));
  pg = await startPostgres({ dataDir: path.join(dir, "pg"), port: await freePort() });
  admin = createSql({ url: pg.url, max: 1, applicationName: "driver-faults-admin" });
}, 120_000);

afterAll(async () => {
  await admin?.end({ timeout: 1 });
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// Vitest reports an unhandled rejection after the fact and against no test; record them here so
// the test that caused one fails.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function terminate(applicationName: string): Promise<number> {
  const rows = await admin<{ pid: number }[]>`
    select pg_terminate_backend(pid)::int as pid from pg_stat_activity
    where application_name = ${applicationName}`;
  return rows.length;
}

/**
 * A TCP proxy in front of the server that holds back the first array-type query a new connection
 * sends (postgres.js runs it on every new connection) and then breaks that connection: `reset`
 * resets the client's socket (ECONNRESET, as when the server's host drops it); `terminate` has
 * the server end the backend (pg_terminate_backend: FATAL 57P01, then the socket closes), as a
 * restart or a failover does. Every later connection passes untouched.
 */
async function typesQueryBreaker(mode: "reset" | "terminate", applicationName: string) {
  let armed = true;
  let broken = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(pg.port, "127.0.0.1");
    client.on("error", () => {});
    upstream.on("error", () => {});
    upstream.on("data", (d) => client.write(d));
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.on("data", (d) => {
      if (armed && d.includes("pg_catalog.pg_type")) {
        armed = false;
        if (mode === "reset") {
          client.resetAndDestroy();
          upstream.destroy();
          broken = true;
        } else {
          void terminate(applicationName).then(() => {
            broken = true;
          });
        }
        return;
      }
      upstream.write(d);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: pg.url.replace(`:${pg.port}/`, `:${port}/`),
    get broken() {
      return broken;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("postgres.js when a backend dies", () => {
  for (const mode of ["reset", "terminate"] as const) {
    it(`a connection broken (${mode}) while it fetches array types fails no query and crashes nothing`, async () => {
      // porsager/postgres#1192, #1205, #279: ReadyForQuery drops fetchArrayTypes()'s promise, so
      // its failure is an unhandled rejection. #1223: after a 57P01 the stale error was replayed
      // onto the first query of the reconnected connection.
      const applicationName = `driver-faults-types-${mode}`;
      const proxy = await typesQueryBreaker(mode, applicationName);
      const sql = createSql({ url: proxy.url, max: 1, applicationName });
      try {
        const first = await sql<{ n: number }[]>`select 1 as n`.then(
          (rows) => rows[0]?.n,
          (err: { code?: string }) => err.code,
        );
        // A reset reaches the query in hand (a connection error, which the services retry or
        // answer 503); a termination during start-up is waited out: the driver connects again.
        expect(first).toBe(mode === "reset" ? "ECONNRESET" : 1);
        expect(proxy.broken).toBe(true);
        expect((await sql<{ n: number }[]>`select 2 as n`)[0]?.n).toBe(2);
        await sleep(50);
        expect(unhandled).toEqual([]);
      } finally {
        await sql.end({ timeout: 1 });
        await proxy.close();
      }
    });
  }

  it("a query cut off by a terminated backend does not pass its error to the next query", async () => {
    // After 57P01 and the close, 3.4.9 kept the dead query and its error; the reconnected
    // connection's first ReadyForQuery then failed a fresh query with that old 57P01.
    const applicationName = "driver-faults-stale";
    const sql = createSql({ url: pg.url, max: 1, applicationName });
    try {
      await sql`select 1`;
      const slow = sql`select pg_sleep(30)`.then(
        () => "finished",
        (err: { code?: string }) => err.code,
      );
      await sleep(300);
      expect(await terminate(applicationName)).toBe(1);
      expect(["CONNECTION_CLOSED", "57P01"]).toContain(await slow);
      expect((await sql<{ n: number }[]>`select 2 as n`)[0]?.n).toBe(2);
      expect(unhandled).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("a transaction whose connection died runs nothing more, even when its callback goes on", async () => {
    // sql.begin rejects as soon as its connection closes, but the callback keeps running; in
    // 3.4.9 its later statements went to whatever the pooled connection was doing next: here an
    // insert that committed outside any transaction, after the transaction had failed.
    const applicationName = "driver-faults-begin";
    const sql = createSql({ url: pg.url, max: 1, applicationName });
    try {
      await sql`create table if not exists escaped (id int primary key)`;
      await sql`truncate escaped`;
      const reconnected = gate();
      let late: string | undefined;
      const tx = sql
        .begin(async (tx) => {
          await tx`select 1`;
          await terminate(applicationName);
          await reconnected.opened;
          late = await tx`insert into escaped (id) values (1)`.then(
            () => "inserted",
            (err: { code?: string }) => err.code,
          );
        })
        .then(
          () => "committed",
          (err: { code?: string }) => err.code,
        );
      expect(await tx).toBe("CONNECTION_CLOSED");
      // The pool's only connection, opened again for someone else.
      expect((await sql<{ n: number }[]>`select 2 as n`)[0]?.n).toBe(2);
      reconnected.open();
      await sleep(300);
      expect(late).toBe("CONNECTION_CLOSED");
      expect((await sql<{ n: bigint }[]>`select count(*) as n from escaped`)[0]?.n).toBe(0n);
      expect(unhandled).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("a transaction whose BEGIN fills a connection's pipeline still holds its connection", async () => {
    // porsager/postgres#1189 (PR #1218): execute() ran the hook that reserves the transaction's
    // connection only while the pipeline had room, so a BEGIN that filled it (after a restart,
    // the backlog is pipelined onto the first connections back) ran without one: the callback's
    // statements threw a TypeError outside any promise chain (an unhandled rejection), and the
    // server's open transaction went back to the pool for unrelated queries. max_pipeline: 0
    // makes every statement the one that fills the pipeline.
    const applicationName = "driver-faults-pipeline";
    const sql = postgres(pg.url, {
      max: 1,
      // Documented by postgres.js, missing from its type definitions.
      ...({ max_pipeline: 0 } as object),
      onnotice: () => {},
      connection: { application_name: applicationName },
    });
    try {
      const inside = await sql
        .begin(async (tx) => (await tx<{ n: number }[]>`select 1 as n`)[0]?.n)
        .catch((err: Error) => err.message);
      expect(inside).toBe(1);
      await sleep(100);
      // No transaction left open on the server behind the pool's back.
      const open = await admin<{ n: bigint }[]>`select count(*) as n from pg_stat_activity
        where application_name = ${applicationName} and xact_start is not null`;
      expect(open[0]?.n).toBe(0n);
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("a reserved connection that died runs nothing on the connection that replaced it", async () => {
    const applicationName = "driver-faults-reserve";
    const sql = createSql({ url: pg.url, max: 1, applicationName });
    try {
      await sql`create table if not exists escaped_reserved (id int primary key)`;
      await sql`truncate escaped_reserved`;
      const reserved = await sql.reserve();
      await reserved`select 1`;
      await terminate(applicationName);
      await sleep(200);
      // Released (as a caller's finally does), then the pool opens its connection again.
      reserved.release();
      expect((await sql<{ n: number }[]>`select 2 as n`)[0]?.n).toBe(2);
      const late = await reserved`insert into escaped_reserved (id) values (1)`.then(
        () => "inserted",
        (err: { code?: string }) => err.code,
      );
      expect(late).toBe("CONNECTION_CLOSED");
      expect((await sql<{ n: bigint }[]>`select count(*) as n from escaped_reserved`)[0]?.n).toBe(0n);
      expect(unhandled).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("a reservation waiting when the pool's connection dies gets the connection opened again", async () => {
    // The closed connection reopens for the next in line, taking it off the pool's queue; 3.4.9
    // then dropped a reservation while the new connection fetched its types, and it waited for
    // ever (a Sui intent's lock never taken: settlement's chain work stalled until JetStream's
    // ack wait, or its pool ran dry).
    const applicationName = "driver-faults-reserve-waiting";
    const sql = createSql({ url: pg.url, max: 1, applicationName });
    try {
      const first = await sql.reserve();
      await first`select 1`;
      const second = sql.reserve();
      await sleep(100);
      expect(await terminate(applicationName)).toBe(1);
      const next = await within(10_000, second);
      expect((await next<{ n: number }[]>`select 2 as n`)[0]?.n).toBe(2);
      next.release();
      first.release();
      expect((await sql<{ n: number }[]>`select 3 as n`)[0]?.n).toBe(3);
      expect(unhandled).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("reservations and queries under backends ended every few hundred milliseconds all settle", async () => {
    // The shape of a Sui intent (a reservation, a session lock, pipelined statements, the unlock
    // in a finally) next to plain queries, while every connection is ended again and again.
    // 3.4.9 left some waiting for ever: a statement handed to a connection between its socket
    // error and its close stayed in `sent`, and a reservation handed a connection after it had
    // failed took that connection out of the pool for good.
    const applicationName = "driver-faults-reserve-churn";
    const sql = createSql({ url: pg.url, max: 3, applicationName });
    const stuck: string[] = [];
    let done = 0;
    let stop = false;
    const lockHolder = async (n: number) => {
      const reserved = await sql.reserve();
      try {
        await reserved`select pg_advisory_lock(${4200 + (n % 3)})`;
        try {
          await Promise.all([reserved`select 1`, reserved`select 2`]);
          await sleep(Math.random() * 10);
        } finally {
          await reserved`select pg_advisory_unlock_all()`;
        }
      } finally {
        reserved.release();
      }
    };
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const op: Promise<unknown> = i % 3 === 0 ? sql`select ${n}::int`.execute() : lockHolder(n);
        const outcome = await within(10_000, op).then(
          () => "settled",
          (err: Error) => (err.message === "still waiting" ? "stuck" : "failed"),
        );
        if (outcome === "stuck") {
          stuck.push(`worker ${n}, operation ${i}`);
          return;
        }
        done++;
      }
    };
    try {
      const workers = Array.from({ length: 8 }, (_, n) => worker(n));
      const deadline = Date.now() + 6_000;
      let rounds = 0;
      while (Date.now() < deadline) {
        rounds += (await terminate(applicationName)) > 0 ? 1 : 0;
        await sleep(50 + Math.random() * 250);
      }
      stop = true;
      await Promise.all(workers);
      expect(stuck).toEqual([]);
      expect(rounds).toBeGreaterThan(5);
      expect(done).toBeGreaterThan(100);
      expect((await sql<{ n: number }[]>`select 4 as n`)[0]?.n).toBe(4);
      expect(unhandled).toEqual([]);
    } finally {
      stop = true;
      await sql.end({ timeout: 1 });
    }
  }, 60_000);
});

/** `promise`, or a rejection "still waiting" once `ms` have passed without it settling. */
function within<T>(ms: number, promise: PromiseLike<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("still waiting")), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
