import { randomUUID } from "node:crypto";
import { type Bus, connectBus, publishWithId } from "@gateway/bus";
import { type DepositReport, depositMessageId } from "@gateway/contracts";
import { newId } from "@gateway/db";
import {
  type Chain,
  computeFee,
  initialPaymentState,
  type PayoutWork,
  type RefundWork,
  STATIC_TEST_PRICES,
  type SweepWork,
  toCoinUnits,
} from "@gateway/domain";
import { creditPayment } from "@gateway/ledger";
import { createLogger } from "@gateway/logging";
import { applyPaymentMessage, insertPayment } from "@gateway/payments";
import { createPayout, MANUAL_PAYOUT_NETWORK_FEE, payoutSubjects } from "@gateway/payouts";
import {
  createTestBus,
  createTestDatabase,
  skipRelayBacklog,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChainPayout, ChainPayouts } from "./chains/chain-payouts.js";
import type { ChainSettlement } from "./chains/chain-settlement.js";
import { type Settlement, startSettlement } from "./settlement.js";

const log = createLogger({ name: "settlement-work-test", level: "silent" });
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
const merchantId = newId("mer");
const running: Settlement[] = [];
const fakes: { release(): void }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
});
// Each test its own streams and consumers (the upgrade test starts from the previous version's).
beforeEach(async () => {
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
});
afterEach(async () => {
  // A stopping consumer waits for the work it holds: a stalled chain has to let go first.
  for (const fake of fakes.splice(0)) fake.release();
  for (const s of running.splice(0)) await s.stop();
  // Rows the relay had not published yet are for this test's streams, gone in a moment: the next
  // test's relay must not try them.
  await skipRelayBacklog(db.sql);
  await bus.close();
  await testBus.cleanup();
});
afterAll(async () => {
  await db.drop();
});

/** A chain settlement that records each call and, while blocked, never finishes one (a stalled chain). */
function fakeChain(chain: Chain) {
  const calls: { intentId: string; at: number }[] = [];
  let blocked = false;
  let waiting: (() => void)[] = [];
  const run = async (work: SweepWork | RefundWork | PayoutWork) => {
    calls.push({ intentId: work.intentId, at: Date.now() });
    if (blocked) await new Promise<void>((resolve) => waiting.push(resolve));
    return { txid: `tx-${work.intentId}` };
  };
  const adapter: ChainSettlement = { chain, sweep: run, refund: run };
  const payouts: ChainPayout = { chain, payout: run };
  const fake = {
    adapter,
    payouts,
    calls,
    block() {
      blocked = true;
    },
    release() {
      blocked = false;
      for (const resolve of waiting) resolve();
      waiting = [];
    },
  };
  fakes.push(fake);
  return fake;
}

const actor = () => ({ sql: db.sql, topology: bus.topology, log, publicBaseUrl: "https://pay.example" });

/** A live USDC payment on `chain` with its deposit address assigned, not paid yet. */
async function assignedPayment(chain: Chain): Promise<{ id: string; address: string; amountDue: bigint }> {
  const amount = 1250n;
  const state = initialPaymentState({
    id: randomUUID(),
    mode: "live",
    currency: "USD",
    amount,
    fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + 600_000,
  });
  await insertPayment(db.sql, { state, merchantId, description: null, redirectUrl: null });
  const amountDue = toCoinUnits(amount, "USD", "USDC");
  const address = `${chain}-deposit-${state.id}`;
  await db.sql`
    insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
    values (${newId("dw")}, ${state.id}, 'live', ${chain}, 'USDC',
      nextval(${`deposit_index_${chain}_live`}), ${address}, ${amountDue})`;
  await applyPaymentMessage(actor(), state.id, {
    type: "wallet_assigned",
    chain,
    coin: "USDC",
    address,
    amountDue,
  });
  return { id: state.id, address, amountDue };
}

/** A live USDC payment on `chain`, paid in full: confirmed, its sweep in the outbox. */
async function confirmedPayment(chain: Chain): Promise<string> {
  const { id, amountDue } = await assignedPayment(chain);
  const paid = await applyPaymentMessage(actor(), id, {
    type: "transfer_final",
    transferId: `transfer-${id}`,
    coin: "USDC",
    amount: amountDue,
    sender: "customer",
  });
  expect(paid?.row.status).toBe("confirmed");
  return id;
}

const completed = async (ids: string[]) =>
  (
    await db.sql<{ n: number }[]>`
      select count(*)::int as n from payments where id = any(${db.sql.array(ids)}::uuid[]) and status = 'completed'`
  )[0]!.n;

/** A live payout of 1 USDC on `chain` from a merchant with enough balance there: pending, its command in the outbox. */
async function livePayout(chain: Chain): Promise<string> {
  const merchant = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${merchant}, ${`${merchant}@example.test`}, 'Shop', 'x')`;
  await db.sql.begin((tx) =>
    creditPayment(tx, {
      mode: "live",
      chain,
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId: merchant,
      gross: 2_100_000n,
      fee: 100_000n,
      net: 2_000_000n,
    }),
  );
  const row = await db.sql.begin((tx) =>
    createPayout(tx, payoutSubjects(bus.topology), {
      merchantId: merchant,
      mode: "live",
      chain,
      coin: "USDC",
      amount: 1_000_000n,
      networkFee: MANUAL_PAYOUT_NETWORK_FEE[chain],
      destination: `${chain}-destination`,
      kind: "manual",
    }),
  );
  return row.id;
}

const payoutsCompleted = async (ids: string[]) =>
  (
    await db.sql<{ n: number }[]>`
      select count(*)::int as n from payouts where id = any(${db.sql.array(ids)}::text[]) and status = 'completed'`
  )[0]!.n;

const completionEvents = async (ids: string[]) =>
  (
    await db.sql<{ n: number }[]>`
      select count(*)::int as n from events where payment_id = any(${db.sql.array(ids)}::uuid[])
        and type = 'payment.completed'`
  )[0]!.n;

async function start(chains: Partial<Record<Chain, ChainSettlement>>, payouts: ChainPayouts = {}) {
  const settlement = await startSettlement({
    sql: db.sql,
    bus,
    log,
    publicBaseUrl: "https://pay.example",
    expiryPollMs: 60_000,
    outboxPollMs: 50,
    chains,
    payouts: { chains: payouts, schedulePollMs: 3_600_000 },
  });
  running.push(settlement);
  return settlement;
}

describe("settlement work, per chain", () => {
  it("keeps sweeping on Solana while every Sui sweep hangs", async () => {
    const solana = fakeChain("solana");
    const sui = fakeChain("sui");
    sui.block();
    await start({ solana: solana.adapter, sui: sui.adapter });

    // More stalled Sui sweeps than a consumer has slots (CHAIN_WORK_PACING: 64).
    const suiPayments = await Promise.all(Array.from({ length: 70 }, () => confirmedPayment("sui")));
    await waitFor(() => sui.calls.length >= 64, { what: "64 Sui sweeps in hand" });

    const solanaPayments = await Promise.all(Array.from({ length: 5 }, () => confirmedPayment("solana")));
    await waitFor(async () => (await completed(solanaPayments)) === solanaPayments.length, {
      what: "Solana payments completed while Sui is stalled",
    });
    expect(await completed(suiPayments)).toBe(0);

    // Sui comes back: its sweeps finish, each payment completed once.
    sui.release();
    await waitFor(async () => (await completed(suiPayments)) === suiPayments.length, {
      what: "Sui payments completed after the stall",
      timeoutMs: 20_000,
    });
    expect(await completionEvents([...suiPayments, ...solanaPayments])).toBe(75);
    expect(new Set(sui.calls.map((c) => c.intentId)).size).toBe(70);
  });

  it("keeps paying out on Solana while every Sui payout hangs", async () => {
    const solana = fakeChain("solana");
    const sui = fakeChain("sui");
    sui.block();
    await start({}, { solana: solana.payouts, sui: sui.payouts });

    const suiPayouts = await Promise.all(Array.from({ length: 70 }, () => livePayout("sui")));
    await waitFor(() => sui.calls.length >= 64, { what: "64 Sui payouts in hand" });

    const solanaPayouts = await Promise.all(Array.from({ length: 5 }, () => livePayout("solana")));
    await waitFor(async () => (await payoutsCompleted(solanaPayouts)) === solanaPayouts.length, {
      what: "Solana payouts completed while Sui is stalled",
    });
    expect(await payoutsCompleted(suiPayouts)).toBe(0);

    sui.release();
    await waitFor(async () => (await payoutsCompleted(suiPayouts)) === suiPayouts.length, {
      what: "Sui payouts completed after the stall",
      timeoutMs: 20_000,
    });
    expect(new Set(sui.calls.map((c) => c.intentId)).size).toBe(70);
  });
});

/** Publishes outbox row `id` now, as a relay would (no relay runs in these tests). */
async function publishRow(id: string) {
  const [row] = await db.sql<{ subject: string; payload: unknown }[]>`
    select subject, payload from outbox where id = ${id}`;
  await publishWithId(bus.js, row!.subject, row!.payload, id, "");
}

type PulledConsumer = Awaited<ReturnType<Bus["js"]["consumers"]["get"]>>;
type JsMsg = NonNullable<Awaited<ReturnType<PulledConsumer["next"]>>>;

/** A durable as the previous version created it: one for every chain, from the stream's start. */
async function previousDurable(durable: string, subject: string, ackWaitMs: number) {
  // (The enums' values: settlement does not depend on @nats-io/jetstream itself.)
  await bus.jsm.consumers.add(bus.topology.streams.commands, {
    durable_name: durable,
    ack_policy: "explicit",
    deliver_policy: "all",
    ack_wait: ackWaitMs * 1_000_000,
    filter_subject: subject,
  } as Parameters<Bus["jsm"]["consumers"]["add"]>[1]);
  const consumer = await bus.js.consumers.get(bus.topology.streams.commands, durable);
  return async (): Promise<JsMsg> => (await consumer.next({ expires: 2_000 }))!;
}

const paymentEvents = async (id: string) =>
  (await db.sql<{ type: string }[]>`select type from events where payment_id = ${id} order by seq`).map(
    (e) => e.type,
  );
const sweepTxid = async (id: string) =>
  (await db.sql<{ txid: string }[]>`select state->>'sweepTxid' as txid from payments where id = ${id}`)[0]
    ?.txid;

describe("upgrade from one settlement-work consumer for every chain", () => {
  it("hands its work to the chains' consumers: pending work done once, after its holders' ack wait; handled work not redone", async () => {
    // The previous consumers' ack wait (120 s in production): long enough for F, published after
    // the upgrade, to go through before the hold ends, on a busy machine too.
    const ackWaitMs = 4_000;
    const next = await previousDurable("settlement-work", bus.topology.subjects.allSettlement, ackWaitMs);
    const nextPayout = await previousDurable(
      "payouts",
      payoutSubjects(bus.topology).allPayoutCommands,
      ackWaitMs,
    );
    const actorDeps = actor();

    // Stream order: A, C, B, D, E. The previous version's replicas handled A (acked: the floor)
    // and B (acked out of order, above the floor), and hold C and D, in flight at the upgrade.
    // E was published but not delivered yet.
    const [a, c, b, d, e] = [
      await confirmedPayment("solana"),
      await confirmedPayment("solana"),
      await confirmedPayment("sui"),
      await confirmedPayment("sui"),
      await confirmedPayment("solana"),
    ];
    for (const id of [a, c, b, d, e]) await publishRow(`sweep:${id}`);
    const handleAsPrevious = async (msg: JsMsg, paymentId: string) => {
      await applyPaymentMessage(actorDeps, paymentId, { type: "sweep_done", txid: `old-${paymentId}` });
      msg.ack();
    };
    const delivered = [await next(), await next(), await next(), await next()];
    expect(delivered.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    await handleAsPrevious(delivered[0]!, a);
    await handleAsPrevious(delivered[2]!, b);
    const inHand = { c: delivered[1]!, d: delivered[3]! };
    await waitFor(
      async () =>
        (await bus.jsm.consumers.info(bus.topology.streams.commands, "settlement-work")).ack_floor
          .stream_seq === 1,
      { what: "the previous consumer's ack floor at A" },
    );
    // A payout in flight on the previous payouts consumer, too.
    const payout = await livePayout("solana");
    await publishRow(`payout:${payout}`);
    const payoutInHand = await nextPayout();
    expect(payoutInHand.json<{ payout_id: string }>().payout_id).toBe(payout);

    // The new version: two replicas start at once.
    const solana = fakeChain("solana");
    const sui = fakeChain("sui");
    const upgradedAt = Date.now();
    await Promise.all([
      start({ solana: solana.adapter, sui: sui.adapter }, { solana: solana.payouts, sui: sui.payouts }),
      start({ solana: solana.adapter, sui: sui.adapter }, { solana: solana.payouts, sui: sui.payouts }),
    ]);
    const consumers = [];
    for await (const info of bus.jsm.consumers.list(bus.topology.streams.commands)) consumers.push(info);
    expect(consumers.map((i) => i.name).sort()).toEqual(
      [
        "payouts-solana",
        "payouts-sui",
        "settlement-deposits",
        "settlement-payment-commands",
        "settlement-work-solana",
        "settlement-work-sui",
      ].sort(),
    );
    const started = Object.fromEntries(consumers.map((i) => [i.name, i.config.opt_start_seq]));
    expect(started).toMatchObject({ "settlement-work-solana": 2, "settlement-work-sui": 2 });

    // A sweep asked for after the upgrade goes at once.
    const f = await confirmedPayment("sui");
    // The old replica holding D finishes it during the hold; its ack goes nowhere (its consumer
    // is gone), and the new consumer must find D handled, not sweep it again.
    await handleAsPrevious(inHand.d, d);
    // The one holding C and the payout dies with them.
    void inHand.c;
    void payoutInHand;

    const all = [a, b, c, d, e, f];
    await waitFor(async () => (await completed(all)) === all.length, {
      what: "every payment completed",
      timeoutMs: 20_000,
    });
    await waitFor(async () => (await payoutsCompleted([payout])) === 1, { what: "the payout completed" });

    const intents = (fake: ReturnType<typeof fakeChain>) => fake.calls.map((call) => call.intentId).sort();
    // Each swept once, by whoever held it; A and B (handled before) and D (handled by the old
    // replica during the hold) never reach a chain again.
    expect(intents(solana)).toEqual([`payout:${payout}`, `sweep:${c}`, `sweep:${e}`].sort());
    expect(intents(sui)).toEqual([`sweep:${f}`]);
    for (const id of all) expect(await paymentEvents(id)).toContain("payment.completed");
    expect(await completionEvents(all)).toBe(all.length);
    expect(await sweepTxid(a)).toBe(`old-${a}`);
    expect(await sweepTxid(b)).toBe(`old-${b}`);
    expect(await sweepTxid(d)).toBe(`old-${d}`);
    expect(await sweepTxid(c)).toBe(`tx-sweep:${c}`);

    // What the previous consumers had handed out (C, E, the payout) waited for their ack wait from
    // the handover, which came after `upgradedAt`; F, published after the handover, did not wait.
    // (Each replica holds until the time it wrote or read: replicas starting together may write
    // a little apart, so the bound is the earliest possible.)
    const at = (fake: ReturnType<typeof fakeChain>, intentId: string) =>
      fake.calls.find((call) => call.intentId === intentId)!.at;
    for (const intentId of [`sweep:${c}`, `sweep:${e}`, `payout:${payout}`]) {
      expect(at(solana, intentId)).toBeGreaterThanOrEqual(upgradedAt + ackWaitMs);
    }
    expect(at(sui, `sweep:${f}`)).toBeLessThan(upgradedAt + ackWaitMs);
    const { description } = (
      await bus.jsm.consumers.info(bus.topology.streams.commands, "settlement-work-solana")
    ).config;
    expect(description).toMatch(
      /^handover from settlement-work: started at stream seq 2; seq <= \d+ held until /,
    );
  });
});

/** How many transactions last wrote these payments (rows one transaction wrote share its xmin). */
const transactionsOf = async (paymentIds: string[]) =>
  (
    await db.sql<{ n: number }[]>`
      select count(distinct xmin::text)::int as n from payments where id = any(${db.sql.array(paymentIds)}::uuid[])`
  )[0]!.n;

const statuses = async (ids: string[]) =>
  (
    await db.sql<
      { status: string }[]
    >`select status from payments where id = any(${db.sql.array(ids)}::uuid[])`
  ).map((row) => row.status);

describe("what the chains did, reported to the payments", () => {
  it("applies deposit reports that arrive together in shared transactions, each once", async () => {
    // Sweeps hang: the payments stay confirmed, where the deposits leave them.
    const solana = fakeChain("solana");
    solana.block();
    await start({ solana: solana.adapter });
    const payments = await Promise.all(Array.from({ length: 30 }, () => assignedPayment("solana")));
    const reports: DepositReport[] = payments.map(({ id, address, amountDue }) => ({
      chain: "solana",
      address,
      transfer_id: `solana:transfer-${id}:0`,
      coin: "USDC",
      amount: amountDue.toString(),
      sender: "customer",
      stage: "final",
    }));
    const unknown: DepositReport = { ...reports[0]!, address: "nobody's", transfer_id: "solana:stray:0" };
    // Every report twice: JetStream drops the second publish of an id, so the repeat goes out
    // under another id, as a watcher that restarted would send it; the payment refuses it.
    const publish = (report: DepositReport, id = depositMessageId(report)) =>
      publishWithId(bus.js, bus.topology.subjects.deposit("solana"), report, id, "");
    await Promise.all([...reports, unknown].map((report) => publish(report)));
    await Promise.all(reports.map((report) => publish(report, `${depositMessageId(report)}-again`)));

    const ids = payments.map((p) => p.id);
    await waitFor(async () => (await statuses(ids)).every((status) => status === "confirmed"), {
      what: "every payment confirmed",
    });
    await waitFor(async () => solana.calls.length === ids.length, { what: "one sweep asked for each" });
    expect(await transactionsOf(ids)).toBeLessThan(ids.length);
    const confirmations = await db.sql<{ n: number }[]>`
      select count(*)::int as n from events where payment_id = any(${db.sql.array(ids)}::uuid[])
        and type = 'payment.confirmed'`;
    expect(confirmations[0]!.n).toBe(ids.length);
  });

  it("reports sweeps that finish together in shared transactions: each payment completed and credited once", async () => {
    const solana = fakeChain("solana");
    solana.block();
    await start({ solana: solana.adapter });
    const ids = await Promise.all(Array.from({ length: 30 }, () => confirmedPayment("solana")));
    await waitFor(async () => solana.calls.length === ids.length, { what: "every sweep in hand" });
    solana.release();
    await waitFor(async () => (await completed(ids)) === ids.length, { what: "every payment completed" });
    expect(await completionEvents(ids)).toBe(ids.length);
    const credits = await db.sql<{ n: number }[]>`
      select count(*)::int as n from ledger_transfers
      where payment_id = any(${db.sql.array(ids)}::uuid[]) and linked_to is null`;
    expect(credits[0]!.n).toBe(ids.length);
    expect(await transactionsOf(ids)).toBeLessThan(ids.length);
  });
});
