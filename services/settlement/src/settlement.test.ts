import { randomUUID } from "node:crypto";
import { type Bus, connectBus } from "@gateway/bus";
import { enqueueOutbox, newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES } from "@gateway/domain";
import { createLogger } from "@gateway/logging";
import { insertPayment } from "@gateway/payments";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Settlement, startSettlement } from "./settlement.js";

const log = createLogger({ name: "settlement-test", level: "silent" });
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let settlement: Settlement;
const merchantId = newId("mer");

beforeAll(async () => {
  db = await createTestDatabase();
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
  settlement = await startSettlement({
    sql: db.sql,
    bus,
    log,
    publicBaseUrl: "https://pay.example",
    expiryPollMs: 50,
    outboxPollMs: 50,
  });
});
afterAll(async () => {
  await settlement.stop();
  await bus.close();
  await testBus.cleanup();
  await db.drop();
});

async function newPayment(options: { expiresInMs?: number; mode?: "test" | "live" } = {}) {
  const amount = 1250n;
  const state = initialPaymentState({
    id: randomUUID(),
    mode: options.mode ?? "test",
    currency: "USD",
    amount,
    fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + (options.expiresInMs ?? 600_000),
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  return state.id;
}

async function simulate(paymentId: string, outcome: string, commandId = newId("cmd")) {
  await enqueueOutbox(db.sql, [
    {
      id: commandId,
      subject: bus.topology.subjects.paymentCommand("simulate"),
      payload: { payment_id: paymentId, message: { type: "simulate", outcome } },
    },
  ]);
}

const statusOf = async (id: string) =>
  (await db.sql<{ status: string }[]>`select status from payments where id = ${id}`)[0]?.status;
const eventsOf = async (id: string) =>
  (await db.sql<{ type: string }[]>`select type from events where payment_id = ${id} order by seq`).map(
    (e) => e.type,
  );

describe("settlement, test mode", () => {
  it("completes a simulated paid payment with its fee and a payment.completed event", async () => {
    const id = await newPayment();
    // The relay here belongs to settlement; the command rides the same outbox.
    await simulate(id, "paid");
    await waitFor(async () => (await statusOf(id)) === "completed", { what: "completed" });
    expect(await eventsOf(id)).toEqual(["payment.completed"]);
    const [row] = await db.sql<{ state: { credit: { gross: string; fee: string; net: string } } }[]>`
      select state from payments where id = ${id}`;
    expect(row?.state.credit).toMatchObject({ gross: "12500000", fee: "130000", net: "12370000" });
    // The event reaches the stream with the event id as its message id (the outbox relay publishes
    // it after the commit that completed the payment, so under load it may still be on its way).
    const [event] = await db.sql<{ id: string }[]>`select id from events where payment_id = ${id}`;
    const lastCompleted = () =>
      bus.jsm.streams
        .getMessage(bus.topology.streams.events, {
          last_by_subj: bus.topology.subjects.event("payment.completed"),
        })
        .catch(() => null);
    await waitFor(async () => (await lastCompleted())?.header.get("Nats-Msg-Id") === event?.id, {
      what: "payment.completed on the stream",
    });
    const msg = await lastCompleted();
    expect(msg?.header.get("Nats-Msg-Id")).toBe(event?.id);
    expect(
      msg?.json<{ event: { data: { payment: { id: string; status: string } } } }>().event.data.payment,
    ).toMatchObject({
      id,
      status: "completed",
    });
  });

  it("reaches the docs/test-mode.md states for underpaid, overpaid and expired simulations", async () => {
    const under = await newPayment();
    const over = await newPayment();
    const expired = await newPayment();
    await simulate(under, "underpaid");
    await simulate(over, "overpaid");
    await simulate(expired, "expired");
    await waitFor(async () => (await statusOf(under)) === "refunded", { what: "underpaid → refunded" });
    await waitFor(async () => (await statusOf(over)) === "completed", { what: "overpaid → completed" });
    await waitFor(async () => (await statusOf(expired)) === "expired", { what: "expired" });
    expect(await eventsOf(under)).toEqual(["payment.underpaid", "payment.refunded"]);
    expect(await eventsOf(expired)).toEqual(["payment.expired"]);
  });

  it("applies a command delivered twice only once", async () => {
    const id = await newPayment();
    const commandId = newId("cmd");
    await simulate(id, "paid", commandId);
    await waitFor(async () => (await statusOf(id)) === "completed", { what: "completed" });
    // A second publish with a new outbox row but the same message id is dropped by JetStream;
    // a redelivery of the same message is refused by the payment's state.
    await bus.js.publish(
      bus.topology.subjects.paymentCommand("simulate"),
      JSON.stringify({ payment_id: id, message: { type: "simulate", outcome: "paid" } }),
      { msgID: `${commandId}-again` },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await eventsOf(id)).toEqual(["payment.completed"]);
  });

  it("applies a burst of commands in shared transactions: each once, in order, a failing one alone", async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => newPayment()));
    const commands = ids.flatMap((id, i) => {
      const paid = { id: newId("cmd"), paymentId: id, outcome: "paid" };
      // Every fourth payment also gets a second command right behind the first: it comes after
      // the completion, so it is refused and adds nothing.
      return i % 4 === 0 ? [paid, { id: newId("cmd"), paymentId: id, outcome: "expired" }] : [paid];
    });
    // Not a UUID: PostgreSQL fails the statement, and with it the batch it landed in.
    const broken = { id: newId("cmd"), paymentId: "not-a-payment", outcome: "paid" };
    commands.splice(10, 0, broken);
    // One outbox insert: the relay publishes them back to back, so the consumer has them together.
    await enqueueOutbox(
      db.sql,
      commands.map((c) => ({
        id: c.id,
        subject: bus.topology.subjects.paymentCommand("simulate"),
        payload: { payment_id: c.paymentId, message: { type: "simulate", outcome: c.outcome } },
      })),
    );
    await waitFor(
      async () => {
        const rows = await db.sql<{ n: number }[]>`
          select count(*)::int as n from payments where id = any(${db.sql.array(ids)}::uuid[]) and status = 'completed'`;
        return rows[0]?.n === ids.length;
      },
      { what: "every payment of the burst completed" },
    );
    const events = await db.sql<{ payment_id: string; type: string }[]>`
      select payment_id, type from events where payment_id = any(${db.sql.array(ids)}::uuid[])`;
    expect(events).toHaveLength(ids.length);
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(["payment.completed"]));
    const credits = await db.sql<{ n: number }[]>`
      select count(*)::int as n from ledger_transfers
      where payment_id = any(${db.sql.array(ids)}::uuid[]) and linked_to is null`;
    expect(credits[0]?.n).toBe(ids.length);
  });

  it("expires pending payments at expires_at from the database, not from timers", async () => {
    const id = await newPayment({ expiresInMs: 200, mode: "live" });
    expect(await statusOf(id)).toBe("pending");
    await waitFor(async () => (await statusOf(id)) === "expired", { what: "expired by the sweeper" });
    expect(await eventsOf(id)).toEqual(["payment.expired"]);
  });

  it("clears a quote deadline that names no quote of the payment, and leaves the payment be", async () => {
    const ids = [await newPayment(), await newPayment(), await newPayment()];
    // Stale columns (the customer took another quote): the actor refuses each, the column is cleared.
    await db.sql`update payments set quote_expires_at = now() - interval '1 second'
      where id = any(${db.sql.array(ids)}::uuid[])`;
    await waitFor(
      async () =>
        (
          await db.sql<{ n: number }[]>`select count(*)::int as n from payments
            where id = any(${db.sql.array(ids)}::uuid[]) and quote_expires_at is null`
        )[0]?.n === ids.length,
      { what: "stale quote deadlines cleared" },
    );
    for (const id of ids) expect(await statusOf(id)).toBe("pending");
  });

  it("survives a restart: a payment that fell due while settlement was down expires when it is back", async () => {
    await settlement.stop();
    const id = await newPayment({ expiresInMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(id)).toBe("pending");
    settlement = await startSettlement({
      sql: db.sql,
      bus,
      log,
      publicBaseUrl: "https://pay.example",
      expiryPollMs: 50,
      outboxPollMs: 50,
    });
    await waitFor(async () => (await statusOf(id)) === "expired", { what: "expired after restart" });
  });

  it("refuses to simulate a live payment", async () => {
    const id = await newPayment({ mode: "live" });
    await simulate(id, "paid");
    await new Promise((r) => setTimeout(r, 400));
    expect(await statusOf(id)).toBe("pending");
  });
});
