import { createLogger } from "@gateway/logging";
import { createTestBus, type TestBus, waitFor } from "@gateway/testkit";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Bus, connectBus, handOverDurable, RetryLater, startConsumer } from "./index.js";

const log = createLogger({ name: "handover-test", level: "silent" });
let testBus: TestBus;
let bus: Bus;
beforeEach(async () => {
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
});
afterEach(async () => {
  await bus.close();
  await testBus.cleanup();
});

const stream = () => bus.topology.streams.commands;
const subject = () => bus.topology.subjects.allSettlement;
const to = ["work-a", "work-b"];
const options = () => ({ stream: stream(), from: "work", to, subject: subject() });

async function publish(n: number) {
  for (let i = 0; i < n; i++)
    await bus.js.publish(bus.topology.subjects.settlement("sweep"), JSON.stringify({ i }));
}

/** The old durable as the previous version made it, with messages 1..`acked` acknowledged, `held` more delivered and not. */
async function oldDurable({ acked, held, ackWaitMs }: { acked: number[]; held: number; ackWaitMs: number }) {
  await bus.jsm.consumers.add(stream(), {
    durable_name: "work",
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: ackWaitMs * 1_000_000,
    filter_subject: subject(),
  });
  const consumer = await bus.js.consumers.get(stream(), "work");
  const last = Math.max(0, ...acked) + held;
  for (let seq = 1; seq <= last; seq++) {
    const msg = await consumer.next({ expires: 2_000 });
    expect(msg?.seq).toBe(seq);
    if (acked.includes(seq)) await msg!.ackAck();
  }
}

const exists = (name: string) =>
  bus.jsm.consumers.info(stream(), name).then(
    () => true,
    () => false,
  );

describe("handOverDurable", () => {
  it("does nothing when there is no durable to hand over", async () => {
    await publish(3);
    expect(await handOverDurable(bus.jsm, log, options())).toEqual(new Map());
    expect(await exists("work-a")).toBe(false);
  });

  it("starts the new durables at the old one's ack floor, deletes it and holds what it may have handed out", async () => {
    await publish(6);
    // 1 and 2 handled; 3 and 5 in hand (not acked); 4 acked out of order; 6 never delivered.
    await oldDurable({ acked: [1, 2, 4], held: 1, ackWaitMs: 1_500 });
    expect((await bus.jsm.consumers.info(stream(), "work")).ack_floor.stream_seq).toBe(2);

    const before = Date.now();
    const holds = await handOverDurable(bus.jsm, log, options());
    expect(await exists("work")).toBe(false);
    for (const name of to) {
      const info = await bus.jsm.consumers.info(stream(), name);
      expect(info.config.deliver_policy).toBe(DeliverPolicy.StartSequence);
      expect(info.config.opt_start_seq).toBe(3);
      expect(info.config.description).toMatch(
        /^handover from work: started at stream seq 3; seq <= 6 held until /,
      );
      const hold = holds.get(name)!;
      expect(hold.through).toBe(6);
      expect(hold.until).toBeGreaterThanOrEqual(before + 1_500);
      expect(hold.until).toBeLessThanOrEqual(Date.now() + 1_500);
    }

    // Started again (a restart, another replica): nothing changes, the same hold is read back.
    expect(await handOverDurable(bus.jsm, log, options())).toEqual(holds);
  });

  it("is safe from several replicas at once", async () => {
    await publish(4);
    await oldDurable({ acked: [1], held: 2, ackWaitMs: 1_000 });
    const before = Date.now();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => handOverDurable(bus.jsm, log, options())),
    );
    expect(await exists("work")).toBe(false);
    for (const name of to) {
      const info = await bus.jsm.consumers.info(stream(), name);
      expect(info.config.opt_start_seq).toBe(2);
      for (const holds of results) {
        expect(holds.get(name)?.through).toBe(4);
        expect(holds.get(name)!.until).toBeGreaterThanOrEqual(before + 1_000);
      }
    }
  });

  it("finishes a handover a crash left half done", async () => {
    await publish(3);
    await oldDurable({ acked: [1], held: 1, ackWaitMs: 1_000 });
    // A replica created one new durable and died before deleting the old one or writing a hold.
    await bus.jsm.consumers.add(stream(), {
      durable_name: "work-a",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: 2,
      filter_subject: subject(),
      description: "handover from work: started at stream seq 2; its ack wait 1000 ms; hold not set yet",
    });
    await publish(1);
    const before = Date.now();
    const holds = await handOverDurable(bus.jsm, log, options());
    expect(await exists("work")).toBe(false);
    expect((await bus.jsm.consumers.info(stream(), "work-b")).config.opt_start_seq).toBe(2);
    // The hold runs from when the old durable was gone, and covers what was published before.
    expect(holds.get("work-a")).toMatchObject({ through: 4 });
    expect(holds.get("work-a")!.until).toBeGreaterThanOrEqual(before + 1_000);
  });

  it("lets startConsumer take over a handed-over durable where it starts, holding what the handover says", async () => {
    await publish(4);
    // Long enough for message 5 to go through before the hold ends, on a busy machine too.
    await oldDurable({ acked: [1, 2], held: 1, ackWaitMs: 2_500 });
    const holds = await handOverDurable(bus.jsm, log, options());
    const hold = holds.get("work-a")!;
    await publish(1);
    const handled: { seq: number; at: number }[] = [];
    const consumer = await startConsumer<{ i: number }>({
      js: bus.js,
      jsm: bus.jsm,
      log,
      stream: stream(),
      durable: "work-a",
      filterSubjects: [subject()],
      ackWaitMs: 5_000,
      handle: async ({ seq }) => {
        if (seq! <= hold.through && Date.now() < hold.until)
          throw new RetryLater(hold.until - Date.now(), "held");
        handled.push({ seq: seq!, at: Date.now() });
      },
    });
    try {
      await waitFor(() => handled.length === 3, { what: "messages 3 to 5" });
      expect(handled.map((h) => h.seq).sort()).toEqual([3, 4, 5]);
      // 5 came after the handover: at once. 3 (in the old durable's hand) and 4 waited.
      expect(handled.find((h) => h.seq === 5)!.at).toBeLessThan(hold.until);
      for (const h of handled.filter((h) => h.seq <= 4)) expect(h.at).toBeGreaterThanOrEqual(hold.until);
      const info = await bus.jsm.consumers.info(stream(), "work-a");
      expect(info.config.opt_start_seq).toBe(3);
      expect(info.config.ack_wait).toBe(5_000 * 1_000_000);
    } finally {
      await consumer.stop();
    }
  });

  it("hands over again when the old durable is back (a replica of the previous version restarted, a rollback)", async () => {
    await publish(2);
    await oldDurable({ acked: [1], held: 0, ackWaitMs: 1_000 });
    const first = await handOverDurable(bus.jsm, log, options());
    // The previous version makes it again, from the stream's start, and hands out 1 to 3.
    await publish(1);
    await oldDurable({ acked: [], held: 3, ackWaitMs: 1_000 });
    const before = Date.now();
    const again = await handOverDurable(bus.jsm, log, options());
    expect(await exists("work")).toBe(false);
    for (const name of to) {
      expect((await bus.jsm.consumers.info(stream(), name)).config.opt_start_seq).toBe(2);
      expect(again.get(name)!.through).toBe(3);
      expect(again.get(name)!.until).toBeGreaterThanOrEqual(before + 1_000);
      expect(again.get(name)!.until).toBeGreaterThan(first.get(name)!.until);
    }
  });
});
