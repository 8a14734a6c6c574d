import { createLogger } from "@gateway/logging";
import { createTestBus, waitFor } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { type BusMessage, connectBus, consumerBacklogs, startConsumer } from "./index.js";

const log = createLogger({ name: "test", level: "silent" });

describe("startConsumer", () => {
  it("keeps a message that waits for a slot from being delivered again before it is handled", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const subject = bus.topology.subjects.event("slow");
    const seen: BusMessage<{ n: number }>[] = [];
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    // One slot, a one-second ack wait, and a first message whose handler holds the slot for
    // six: the second message waits six times its ack wait behind it (nats-server 2.9 redelivers
    // on its own schedule: three seconds were not always enough to see it on the old consumer).
    const consumer = await startConsumer<{ n: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream: bus.topology.streams.events,
      durable: "slow-test",
      filterSubjects: [subject],
      concurrency: 1,
      ackWaitMs: 1_000,
      handle: async (message) => {
        seen.push(message);
        if (message.data.n === 1 && message.deliveryCount === 1) await firstHeld;
      },
    });
    try {
      await bus.js.publish(subject, JSON.stringify({ n: 1 }), { msgID: "slow-1" });
      await bus.js.publish(subject, JSON.stringify({ n: 2 }), { msgID: "slow-2" });
      await waitFor(async () => seen.length === 1, { what: "first message in hand" });
      await new Promise((r) => setTimeout(r, 6_000));
      releaseFirst();
      await waitFor(async () => seen.some((m) => m.data.n === 2), { what: "second message handled" });
      // Let any redelivery of the second message arrive, were there one.
      await new Promise((r) => setTimeout(r, 2_000));
      const second = seen.filter((m) => m.data.n === 2);
      expect(second.map((m) => m.deliveryCount)).toEqual([1]);
      // The first, held past its ack wait in its handler, was given up and delivered again, as
      // documented for a handler that hangs.
      expect(seen.filter((m) => m.data.n === 1).length).toBeGreaterThan(1);
    } finally {
      await consumer.stop();
      await bus.close();
      await testBus.cleanup();
    }
  }, 20_000);

  it("says in the log, once, when a handler is still running after its ack wait", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const subject = bus.topology.subjects.event("stalled");
    const lines: { msg: string; messageId?: string; deliveryCount?: number }[] = [];
    const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
    const watched = createLogger({ name: "consumer-test", level: "warn", destination });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handled: number[] = [];
    // The first delivery hangs (as a handler awaiting a promise that never settles); the copy
    // JetStream hands out after the ack wait is handled at once.
    const consumer = await startConsumer<{ n: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log: watched,
      stream: bus.topology.streams.events,
      durable: "stalled-test",
      filterSubjects: [subject],
      concurrency: 2,
      ackWaitMs: 1_000,
      handle: async (message) => {
        handled.push(message.deliveryCount);
        if (message.deliveryCount === 1) await held;
      },
    });
    try {
      await bus.js.publish(subject, JSON.stringify({ n: 1 }), { msgID: "stalled-1" });
      await waitFor(async () => handled.length >= 2, {
        what: "the message delivered again",
        timeoutMs: 10_000,
      });
      const stalled = () => lines.filter((l) => l.msg.startsWith("message handler still running"));
      await waitFor(async () => stalled().length > 0, { what: "the stall in the log" });
      expect(stalled()[0]).toMatchObject({ messageId: "stalled-1", deliveryCount: 1 });
      // The copy that ended in time said nothing; the hung one said it once.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(stalled().filter((l) => l.deliveryCount === 1)).toHaveLength(1);
      expect(stalled().filter((l) => l.deliveryCount !== 1)).toEqual([]);
    } finally {
      release();
      await consumer.stop();
      await bus.close();
      await testBus.cleanup();
    }
  }, 30_000);

  it("reports each durable's backlog: not yet delivered, in hand, and redelivered", async () => {
    const testBus = await createTestBus();
    const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
    const subject = bus.topology.subjects.event("backlog");
    const stream = bus.topology.streams.events;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // One slot, a handler that never finishes until released: one in hand, the rest waiting.
    const consumer = await startConsumer({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream,
      durable: "backlog-test",
      filterSubjects: [subject],
      concurrency: 1,
      handle: () => held,
    });
    try {
      for (const n of [1, 2, 3, 4, 5]) await bus.js.publish(subject, JSON.stringify({ n }));
      const backlog = async () =>
        (await consumerBacklogs(bus.jsm, [stream])).find((b) => b.durable === "backlog-test");
      await waitFor(async () => (await backlog())?.ackPending === 5, { what: "all five delivered" });
      expect(await backlog()).toEqual({
        stream,
        durable: "backlog-test",
        pending: 0,
        ackPending: 5,
        redelivered: 0,
      });
      release();
      await waitFor(async () => (await backlog())?.ackPending === 0, { what: "all five acknowledged" });
    } finally {
      await consumer.stop();
      await bus.close();
      await testBus.cleanup();
    }
  });
});
