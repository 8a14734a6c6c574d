import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSql, enqueueOutbox, newId } from "@gateway/db";
import { freePort, type LocalNats, startNats } from "@gateway/local-infra";
import { createLogger } from "@gateway/logging";
import {
  createTestBus,
  createTestDatabase,
  gate,
  singleConnection,
  skipRelayBacklog,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followedLogs } from "./followed-logs.js";
import { connectBus, createOutboxRelay, MESSAGE_ID_HEADER, startConsumer } from "./index.js";
import { busTopology } from "./topology.js";

const log = createLogger({ name: "test", level: "silent" });
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

async function streamCount(bus: Awaited<ReturnType<typeof connectBus>>, stream: string) {
  return (await bus.jsm.streams.info(stream)).state.messages;
}

/** Outbox rows of `ids` the relay has not published yet. */
async function unpublished(ids: string[]): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from outbox_pending where id = any(${ids}::text[])`;
  return row!.n;
}

/** The only unpublished outbox rows: 100 of this bus, older rows passed by the cursor. */
async function hundredUnpublished(bus: Awaited<ReturnType<typeof connectBus>>) {
  await skipRelayBacklog(db.sql);
  const rows = Array.from({ length: 100 }, (_, n) => ({
    id: newId("evt"),
    subject: bus.topology.subjects.event("x"),
    payload: { n },
  }));
  await enqueueOutbox(db.sql, rows);
  return rows;
}

describe("outbox relay", () => {
  it("publishes rows written while NATS is down exactly once after it comes back", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gw-nats-outage-"));
    const port = await freePort();
    let nats: LocalNats = await startNats({ storeDir: dir, port });
    const bus = await connectBus({ url: nats.url, prefix: "outage", name: "test", log });
    const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 50 });
    await relay.start();
    try {
      await enqueueOutbox(db.sql, [
        { id: newId("evt"), subject: bus.topology.subjects.event("before"), payload: { n: 0 } },
      ]);
      await waitFor(async () => (await streamCount(bus, bus.topology.streams.events)) === 1, {
        what: "first message",
      });

      await nats.stop();
      const ids = Array.from({ length: 20 }, () => newId("evt"));
      for (const [n, id] of ids.entries()) {
        await enqueueOutbox(db.sql, [{ id, subject: bus.topology.subjects.event("during"), payload: { n } }]);
      }
      // The relay keeps failing meanwhile; nothing is marked published.
      await new Promise((r) => setTimeout(r, 300));
      expect(await unpublished(ids)).toBe(20);

      nats = await startNats({ storeDir: dir, port });
      await waitFor(async () => (await unpublished(ids)) === 0, {
        timeoutMs: 20_000,
        what: "outbox drained",
      });
      expect(await streamCount(bus, bus.topology.streams.events)).toBe(21);
      // Each id once: read them back.
      const seen: string[] = [];
      for (let seq = 2; seq <= 21; seq++) {
        const msg = await bus.jsm.streams.getMessage(bus.topology.streams.events, { seq });
        seen.push(msg?.header.get("Nats-Msg-Id") ?? "");
      }
      expect(seen.sort()).toEqual([...ids].sort());
    } finally {
      await relay.stop();
      await bus.close();
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("lets JetStream drop a duplicate publish of the same outbox id", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    try {
      const subject = bus.topology.subjects.event("payment.completed");
      const first = await bus.js.publish(subject, "{}", { msgID: "evt_same" });
      const second = await bus.js.publish(subject, "{}", { msgID: "evt_same" });
      expect(first.duplicate).toBe(false);
      expect(second.duplicate).toBe(true);
      expect(await streamCount(bus, bus.topology.streams.events)).toBe(1);
    } finally {
      await bus.close();
      await testBus.cleanup();
    }
  });

  it("two relays at once publish every row once", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const relays = [0, 1].map(() =>
      createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, batchSize: 7, pollMs: 20 }),
    );
    try {
      await hundredUnpublished(bus);
      await Promise.all(relays.map((r) => r.start()));
      await waitFor(async () => (await streamCount(bus, bus.topology.streams.events)) === 100, {
        what: "100 messages",
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(await streamCount(bus, bus.topology.streams.events)).toBe(100);
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
      await bus.close();
      await testBus.cleanup();
    }
  });

  it("moves its cursor after batches of any size with one statement text", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const one = singleConnection(db.url);
    // 100 rows in batches of 7: fourteen of 7 and one of 2.
    const relay = createOutboxRelay({
      sql: one.sql,
      js: bus.js,
      topology: bus.topology,
      log,
      batchSize: 7,
      pollMs: 20,
    });
    try {
      const rows = await hundredUnpublished(bus);
      await relay.start();
      const ids = rows.map((r) => r.id);
      await waitFor(async () => (await unpublished(ids)) === 0, { what: "every row published" });
      expect(await streamCount(bus, bus.topology.streams.events)).toBe(100);
      expect(await one.preparedTexts("update relay_cursors")).toHaveLength(1);
    } finally {
      await relay.stop();
      await one.sql.end();
      await bus.close();
      await testBus.cleanup();
    }
  });
});

describe("outbox relay wake-ups", () => {
  it("wakes at once for rows its own service commits, and leaves other services' rows to the poll", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    // The test database's pool is named "test"; a second pool plays another service.
    const other = createSql({ url: db.url, max: 1, applicationName: "other-service" });
    const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 60_000 });
    try {
      await skipRelayBacklog(db.sql);
      await relay.start();
      const subject = bus.topology.subjects.event("x");
      const theirs = [newId("evt")];
      await enqueueOutbox(other, [{ id: theirs[0]!, subject, payload: {} }]);
      const mine = [newId("evt")];
      await enqueueOutbox(db.sql, [{ id: mine[0]!, subject, payload: {} }]);
      await waitFor(async () => (await unpublished(mine)) === 0, {
        timeoutMs: 2_000,
        what: "own row published without waiting for the poll",
      });
      // The other service's row was pending when the relay drained for its own, so it went too;
      // one committed after that waits for its own service's relay (or this one's poll).
      const later = [newId("evt")];
      await enqueueOutbox(other, [{ id: later[0]!, subject, payload: {} }]);
      await new Promise((r) => setTimeout(r, 500));
      expect(await unpublished(theirs)).toBe(0);
      expect(await unpublished(later)).toBe(1);
    } finally {
      await relay.stop();
      await other.end();
      await bus.close();
      await testBus.cleanup();
    }
  });

  it("does not lose a wake-up that arrives while it drains", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    // JetStream's acknowledgement held back until the test says so: the relay is then busy with
    // a first row while a second one commits and its NOTIFY arrives.
    const held = gate();
    const publishing = gate();
    const js = new Proxy(bus.js, {
      get(target, key, receiver) {
        if (key !== "publish") return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof target.publish>) => {
          publishing.open();
          await held.opened;
          return target.publish(...args);
        };
      },
    });
    // A poll far longer than the test: the second row can only go out on its NOTIFY.
    const relay = createOutboxRelay({ sql: db.sql, js, topology: bus.topology, log, pollMs: 60_000 });
    try {
      await skipRelayBacklog(db.sql);
      await relay.start();
      const subject = bus.topology.subjects.event("x");
      const first = newId("evt");
      await enqueueOutbox(db.sql, [{ id: first, subject, payload: { n: 1 } }]);
      await publishing.opened;
      const second = newId("evt");
      await enqueueOutbox(db.sql, [{ id: second, subject, payload: { n: 2 } }]);
      // The NOTIFY of the second commit reaches the relay while it still waits on the first.
      await new Promise((r) => setTimeout(r, 200));
      held.open();
      await waitFor(async () => (await unpublished([first, second])) === 0, {
        timeoutMs: 3_000,
        what: "the row committed during the drain published on its NOTIFY",
      });
    } finally {
      await relay.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
});

describe("outbox relay after a restore of the database", () => {
  it("publishes rows again under a new bus epoch, and consumers see the same id", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 20 });
    const seen: string[] = [];
    const consumer = await startConsumer<{ n: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream: bus.topology.streams.events,
      durable: "epoch-test",
      filterSubjects: [bus.topology.subjects.event("restored")],
      handle: async (message) => {
        seen.push(message.id);
      },
    });
    const events = () => streamCount(bus, bus.topology.streams.events);
    const id = newId("evt");
    // What a restore does to a row published after the backup: the cursor is put back before it.
    const unpublish = () => db.sql`update relay_cursors c set (xid, seq) = (
        select o.xid, o.seq - 1 from outbox o where o.id = ${id}) where c.relay = 'outbox'`;
    const published = () => waitFor(async () => (await unpublished([id])) === 0, { what: "row published" });
    try {
      await skipRelayBacklog(db.sql);
      await relay.start();
      await enqueueOutbox(db.sql, [
        { id, subject: bus.topology.subjects.event("restored"), payload: { n: 1 } },
      ]);
      await published();
      await waitFor(() => seen.length === 1, { what: "first delivery" });
      const before = await events();

      // Without a new epoch JetStream takes the second publish for a copy and drops it.
      await unpublish();
      await published();
      await new Promise((r) => setTimeout(r, 200));
      expect(await events()).toBe(before);

      // The runbook's new epoch: the same row gets through, and its consumer sees the bare id.
      await db.sql`update bus_epoch set epoch = 'restore-1'`;
      await unpublish();
      await published();
      await waitFor(() => seen.length === 2, { what: "delivery after the restore" });
      expect(await events()).toBe(before + 1);
      expect(seen).toEqual([id, id]);
      const last = await bus.jsm.streams.getMessage(bus.topology.streams.events, { seq: before + 1 });
      expect(last?.header.get("Nats-Msg-Id")).toBe(`restore-1:${id}`);
      expect(last?.header.get(MESSAGE_ID_HEADER)).toBe(id);
    } finally {
      await db.sql`update bus_epoch set epoch = ''`;
      await consumer.stop();
      await relay.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
});

describe("outbox relay's cursor", () => {
  it("never passes a row that an older transaction commits after a younger one's", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 60_000 });
    const early = createSql({ url: db.url, max: 1, applicationName: "early" });
    const subject = bus.topology.subjects.event("gap");
    const [older, younger] = [newId("evt"), newId("evt")];
    const inserted = gate();
    const commit = gate();
    try {
      await skipRelayBacklog(db.sql);
      // The older transaction takes its id and its row first, and commits last.
      const olderTx = early.begin(async (tx) => {
        await tx`insert into outbox (id, subject, payload) values (${older}, ${subject}, '{}')`;
        inserted.open();
        await commit.opened;
      });
      await inserted.opened;
      await enqueueOutbox(db.sql, [{ id: younger, subject, payload: {} }]);
      // The younger row is committed but waits: a seq cursor would pass the older row here.
      expect(await relay.drain()).toBe(0);
      expect(await unpublished([younger])).toBe(1);
      commit.open();
      await olderTx;
      expect(await relay.drain()).toBe(2);
      const ids = [];
      for (let seq = 1; seq <= 2; seq++) {
        const msg = await bus.jsm.streams.getMessage(bus.topology.streams.events, { seq });
        ids.push(msg?.header.get(MESSAGE_ID_HEADER));
      }
      expect(ids).toEqual([older, younger]);
    } finally {
      commit.open();
      await early.end();
      await bus.close();
      await testBus.cleanup();
    }
  });

  it("publishes each event row as the notifier's message, and passes webhook.test events", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 60_000 });
    try {
      await skipRelayBacklog(db.sql);
      const merchantId = newId("mer");
      await db.sql`insert into merchants (id, email, business_name, password_hash)
        values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
      const createdAt = new Date("2026-11-29T10:00:00.123Z");
      const [test, paid] = [newId("evt"), newId("evt")];
      await db.sql`insert into events (id, merchant_id, mode, type, data, created_at) values
        (${test}, ${merchantId}, 'test', 'webhook.test', '{"webhook_endpoint": {}}', ${createdAt}),
        (${paid}, ${merchantId}, 'test', 'payment.completed', '{"payment": {"id": "p1", "amount": "1.00"}}', ${createdAt})`;
      expect(await relay.drain()).toBe(2);
      expect(await streamCount(bus, bus.topology.streams.events)).toBe(1);
      const msg = await bus.jsm.streams.getMessage(bus.topology.streams.events, { seq: 1 });
      expect(msg?.subject).toBe(bus.topology.subjects.event("payment.completed"));
      expect(msg?.header.get(MESSAGE_ID_HEADER)).toBe(paid);
      expect(msg?.json()).toEqual({
        merchant_id: merchantId,
        mode: "test",
        event: {
          id: paid,
          type: "payment.completed",
          created_at: "2026-11-29T10:00:00.123Z",
          is_test: true,
          data: { payment: { id: "p1", amount: "1.00" } },
        },
      });
      const [pending] = await db.sql<{ n: number }[]>`select count(*)::int as n from events_pending`;
      expect(pending!.n).toBe(0);
    } finally {
      await relay.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
  it("reads past its cursor without reading the log behind it", async () => {
    const merchantId = newId("mer");
    await db.sql`insert into merchants (id, email, business_name, password_hash)
      values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
    // A long history behind both cursors, then three new rows of each log.
    await db.sql`insert into events (id, merchant_id, mode, type, data)
      select 'evt_old_' || g, ${merchantId}, 'test', 'payment.created', '{}' from generate_series(1, 5000) g`;
    await db.sql`insert into outbox (id, subject, payload)
      select 'cmd_old_' || g, 'x.cmd', '{}' from generate_series(1, 5000) g`;
    await skipRelayBacklog(db.sql);
    await db.sql`insert into events (id, merchant_id, mode, type, data)
      select 'evt_new_' || g || ${merchantId}, ${merchantId}, 'test', 'payment.created', '{}' from generate_series(1, 3) g`;
    await db.sql`insert into outbox (id, subject, payload)
      select 'cmd_new_' || g || ${merchantId}, 'x.cmd', '{}' from generate_series(1, 3) g`;
    for (const followed of followedLogs(busTopology("reads"))) {
      // This transaction's own index statistics: the entries its read took from the log's index.
      const { rows, scanned } = await db.sql.begin(async (tx) => {
        const rows = await followed.read(tx, 256);
        const [stat] = await tx<{ n: number }[]>`
          select pg_stat_get_xact_tuples_returned(${`${followed.name}_relay`}::regclass)::int as n`;
        return { rows, scanned: stat!.n };
      });
      expect(rows).toHaveLength(3);
      // Far below the 5,000 behind; dead entries other tests' rolled-back rows left may be passed.
      expect(scanned).toBeLessThan(500);
    }
  });
});

describe("consumer", () => {
  it("applies a redelivered message's effect once", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    await db.sql`create table if not exists applied (message_id text primary key, n int)`;
    let deliveries = 0;
    const consumer = await startConsumer<{ n: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream: bus.topology.streams.events,
      durable: "redelivery-test",
      filterSubjects: [bus.topology.subjects.allEvents],
      retryDelayMs: () => 10,
      handle: async (message) => {
        deliveries++;
        // The effect's own key de-duplicates it, as each consumer's does (docs/reliability.md).
        await db.sql`insert into applied values (${message.id}, ${message.data.n}) on conflict do nothing`;
        // The effect committed but the ack is lost (a crash right here): JetStream redelivers.
        if (message.deliveryCount === 1) throw new Error("crash before ack");
      },
    });
    try {
      await bus.js.publish(bus.topology.subjects.event("x"), JSON.stringify({ n: 7 }), {
        msgID: "evt_redeliver",
      });
      await waitFor(() => deliveries >= 2, { what: "redelivery" });
      await new Promise((r) => setTimeout(r, 100));
      const rows = await db.sql`select * from applied where message_id = 'evt_redeliver'`;
      expect(rows.length).toBe(1);
      expect(deliveries).toBe(2);
    } finally {
      await consumer.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
});

describe("consumer, poison message", () => {
  it("drops a message that is not JSON and goes on with the next", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const handled: number[] = [];
    const consumer = await startConsumer<{ n: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream: bus.topology.streams.events,
      durable: "poison-test",
      filterSubjects: [bus.topology.subjects.allEvents],
      handle: async (message) => {
        handled.push(message.data.n);
      },
    });
    try {
      await bus.js.publish(bus.topology.subjects.event("x"), "{not json", { msgID: "evt_poison" });
      await bus.js.publish(bus.topology.subjects.event("x"), JSON.stringify({ n: 1 }), { msgID: "evt_fine" });
      await waitFor(() => handled.includes(1), { what: "the next message" });
      // Both settled (acked and terminated) and nothing came back for another try.
      const info = await waitFor(
        async () => {
          const i = await bus.jsm.consumers.info(bus.topology.streams.events, "poison-test");
          return i.num_ack_pending === 0 && i;
        },
        { what: "no message pending" },
      );
      expect(info.num_redelivered).toBe(0);
      expect(info.delivered.stream_seq).toBe(2);
    } finally {
      await consumer.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
});
