import { randomBytes, randomUUID } from "node:crypto";
import { type Bus, connectBus, createOutboxRelay, type OutboxRelay } from "@gateway/bus";
import { newId } from "@gateway/db";
import { checkLedger, creditPayment, merchantBalances } from "@gateway/ledger";
import { createLogger } from "@gateway/logging";
import {
  createPayout,
  MANUAL_PAYOUT_NETWORK_FEE,
  type PayoutRow,
  payoutSubjects,
  setPayoutSchedule,
} from "@gateway/payouts";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PayoutActor, startPayouts } from "./payouts.js";

const log = createLogger({ name: "payouts-test", level: "silent" });
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let relay: OutboxRelay;
let actor: PayoutActor;
let replica: PayoutActor;

beforeAll(async () => {
  db = await createTestDatabase();
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 50 });
  await relay.start();
  // The schedule loop is driven by hand (runSchedulesOnce) so the tests choose the clock.
  actor = await startPayouts({ sql: db.sql, bus, log, schedulePollMs: 3_600_000 });
  replica = await startPayouts({ sql: db.sql, bus, log, schedulePollMs: 3_600_000 });
});
afterAll(async () => {
  await replica?.stop();
  await actor?.stop();
  await relay?.stop();
  await bus?.close();
  await testBus?.cleanup();
  await db?.drop();
});

const subjects = () => payoutSubjects(bus.topology);

async function merchantWithBalance(mode: "live" | "test", net: bigint, chain: "solana" | "sui" = "solana") {
  const merchantId = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
  await db.sql.begin((tx) =>
    creditPayment(tx, {
      mode,
      chain,
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId,
      gross: net + 100_000n,
      fee: 100_000n,
      net,
    }),
  );
  return merchantId;
}

const payout = (id: string) =>
  db.sql<PayoutRow[]>`select * from payouts where id = ${id}`.then((rows) => rows[0]!);

const eventTypes = (payoutId: string) =>
  db.sql<{ type: string }[]>`select type from events where payout_id = ${payoutId} order by seq`.then(
    (rows) => rows.map((r) => r.type),
  );

async function expectLedgerSound() {
  expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
}

describe("payout actor", () => {
  it("simulates a test payout to completion with payout.* events, spending the reserve", async () => {
    const merchantId = await merchantWithBalance("test", 5_000_000n);
    const row = await db.sql.begin((tx) =>
      createPayout(tx, subjects(), {
        merchantId,
        mode: "test",
        chain: "solana",
        coin: "USDC",
        amount: 2_000_000n,
        networkFee: MANUAL_PAYOUT_NETWORK_FEE.solana,
        destination: new PublicKey(randomBytes(32)).toBase58(),
        kind: "manual",
      }),
    );
    await waitFor(async () => (await payout(row.id)).status === "completed");
    // The command's subject names the chain, not the payout: nats-server keeps every distinct
    // subject of a stream in memory for the stream's 7 days (docs/operations.md#stream-subjects).
    const [command] = await db.sql<
      { subject: string }[]
    >`select subject from outbox where id = ${`payout:${row.id}`}`;
    expect(command!.subject).toBe(`${bus.topology.prefix}.cmd.payout.solana`);
    const done = await payout(row.id);
    expect(done).toMatchObject({ simulated: true, txid: null, failure_reason: null });
    expect(await eventTypes(row.id)).toEqual(["payout.processing", "payout.completed"]);
    const [event] = await db.sql<{ data: { payout: Record<string, unknown> } }[]>`
      select data from events where payout_id = ${row.id} and type = 'payout.completed'`;
    expect(event!.data.payout).toMatchObject({
      id: row.id,
      status: "completed",
      simulated: true,
      is_test: true,
    });
    // The relay publishes the event row for the notifier: same shape as payment events.
    const subject = bus.topology.subjects.event("payout.completed");
    const message = await waitFor(
      async () => {
        const last = await bus.jsm.streams
          .getMessage(bus.topology.streams.events, { last_by_subj: subject })
          .catch(() => null);
        const payload = last?.json<{ event: { data: { payout: { id: string } } } }>();
        return payload?.event.data.payout.id === row.id ? payload : undefined;
      },
      { what: "payout.completed on the bus" },
    );
    expect(message).toMatchObject({
      merchant_id: merchantId,
      mode: "test",
      event: { type: "payout.completed" },
    });
    expect(await merchantBalances(db.sql, merchantId, "test")).toEqual([
      { chain: "solana", coin: "USDC", available: 3_000_000n, pending: 0n },
    ]);
    // Handling it again changes nothing.
    await actor.process(row.id);
    expect(await eventTypes(row.id)).toHaveLength(2);
    await expectLedgerSound();
  });

  it("fails a live payout honestly when no chain payout is configured, and releases its funds", async () => {
    const merchantId = await merchantWithBalance("live", 5_000_000n, "sui");
    const row = await db.sql.begin((tx) =>
      createPayout(tx, subjects(), {
        merchantId,
        mode: "live",
        chain: "sui",
        coin: "USDC",
        amount: 5_000_000n,
        networkFee: MANUAL_PAYOUT_NETWORK_FEE.sui,
        destination: `0x${randomBytes(32).toString("hex")}`,
        kind: "manual",
      }),
    );
    expect((await merchantBalances(db.sql, merchantId, "live"))[0]).toMatchObject({
      available: 0n,
      pending: 5_000_000n,
    });
    await waitFor(async () => (await payout(row.id)).status === "failed");
    expect((await payout(row.id)).failure_reason).toMatch(/not available/);
    expect(await eventTypes(row.id)).toEqual(["payout.processing", "payout.failed"]);
    expect((await merchantBalances(db.sql, merchantId, "live"))[0]).toMatchObject({
      available: 5_000_000n,
      pending: 0n,
    });
    await expectLedgerSound();
  });
});

describe("payout schedule", () => {
  it("pays each chain's balance to its linked wallet once a day, gas free, across replicas", async () => {
    const merchantId = await merchantWithBalance("test", 7_000_000n, "solana");
    await db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "test",
        chain: "sui",
        coin: "USDT",
        paymentId: randomUUID(),
        merchantId,
        gross: 1_100_000n,
        fee: 100_000n,
        net: 1_000_000n,
      }),
    );
    const solWallet = new PublicKey(randomBytes(32)).toBase58();
    const suiWallet = `0x${randomBytes(32).toString("hex")}`;
    await db.sql`insert into payout_wallets (merchant_id, chain, address)
      values (${merchantId}, 'solana', ${solWallet}), (${merchantId}, 'sui', ${suiWallet})`;
    const setAt = new Date("2031-03-04T05:30:00Z");
    const schedule = await setPayoutSchedule(
      db.sql,
      { merchantId, mode: "test", hour: 6, enabled: true, minimumAmount: 0n },
      setAt,
    );
    expect(schedule.next_run_at.toISOString()).toBe("2031-03-04T06:00:00.000Z");

    // Not due yet: nothing. The test clock is years ahead, so other tests' schedules are due too;
    // only this merchant's payouts are looked at.
    const mine = async () =>
      db.sql<PayoutRow[]>`select * from payouts where merchant_id = ${merchantId} order by chain`;
    await actor.runSchedulesOnce(new Date("2031-03-04T05:59:00Z"));
    expect(await mine()).toEqual([]);

    // Due: two replicas at once run it once.
    const due = new Date("2031-03-04T06:00:05Z");
    await Promise.all([actor.runSchedulesOnce(due), replica.runSchedulesOnce(due)]);
    const created = await mine();
    expect(created.map((p) => [p.chain, p.coin, p.amount, p.network_fee, p.kind, p.destination])).toEqual([
      ["solana", "USDC", 7_000_000n, 0n, "scheduled", solWallet],
      ["sui", "USDT", 1_000_000n, 0n, "scheduled", suiWallet],
    ]);
    // The same day again: nothing more, even with a fresh balance.
    await db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "test",
        chain: "solana",
        coin: "USDC",
        paymentId: randomUUID(),
        merchantId,
        gross: 2_100_000n,
        fee: 100_000n,
        net: 2_000_000n,
      }),
    );
    await actor.runSchedulesOnce(new Date("2031-03-04T23:00:00Z"));
    expect(await mine()).toHaveLength(2);
    // Moving the hour later the same day does not give a second free payout that day.
    const moved = await setPayoutSchedule(
      db.sql,
      { merchantId, mode: "test", hour: 20, enabled: true, minimumAmount: 0n },
      new Date("2031-03-04T07:00:00Z"),
    );
    expect(moved.next_run_at.toISOString()).toBe("2031-03-05T20:00:00.000Z");
    await waitFor(async () => (await mine()).every((p) => p.status === "completed"));

    // Next day: the new balance goes out; a paused schedule or a balance under the minimum waits.
    await actor.runSchedulesOnce(new Date("2031-03-05T20:00:01Z"));
    const after = await mine();
    expect(after).toHaveLength(3);
    expect(after.filter((p) => p.chain === "solana").map((p) => p.amount)).toContain(2_000_000n);
    await db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "test",
        chain: "solana",
        coin: "USDC",
        paymentId: randomUUID(),
        merchantId,
        gross: 1_100_000n,
        fee: 100_000n,
        net: 1_000_000n,
      }),
    );
    await setPayoutSchedule(
      db.sql,
      { merchantId, mode: "test", hour: 20, enabled: true, minimumAmount: 5_000_000n },
      new Date("2031-03-05T21:00:00Z"),
    );
    await actor.runSchedulesOnce(new Date("2031-03-06T20:00:01Z"));
    expect(await mine()).toHaveLength(3);
    await setPayoutSchedule(
      db.sql,
      { merchantId, mode: "test", hour: 20, enabled: false, minimumAmount: 0n },
      new Date("2031-03-06T21:00:00Z"),
    );
    await actor.runSchedulesOnce(new Date("2031-03-08T20:00:01Z"));
    expect(await mine()).toHaveLength(3);
    await waitFor(async () => (await mine()).every((p) => p.status === "completed"));
    expect(await merchantBalances(db.sql, merchantId, "test")).toEqual([
      { chain: "solana", coin: "USDC", available: 1_000_000n, pending: 0n },
      { chain: "sui", coin: "USDT", available: 0n, pending: 0n },
    ]);
    await expectLedgerSound();
  });
});
