// PostgreSQL's part of a test payment, alone: the statements the pipeline sends for one payment
// in test mode, sent by `workers` concurrent callers with nothing else on the machine (no HTTP, no
// NATS, none of the services' processes), in batches of `batch` payments where the pipeline
// batches (the create insert, the outbox relays, the notifier's ingest, claim and outcome).
// Settlement's step runs through its real code (`paymentMessagesOnce`: the payment actor and the
// ledger's credit, commands arriving together in one transaction), generate-wallet's write through
// the route's own (`insertWalletWithState`); the statements that live inside the checkout's read,
// the outbox relay and the notifier's workers are copied from them (checkout/index.ts,
// outbox-relay.ts, ingest.ts, delivery-worker.ts): a change there is made here too.
//
// Three stages, each run on a database of its own and measured alone, in turn every round:
//   api         create, the checkout's reads, generate-wallet, the simulate command in the outbox
//   settlement  + the relay of the command, the payment actor's step, the relay of its event
//   notifier    + the event's delivery ingested, claimed and its outcome recorded
// The difference between two stages is what the later one adds. Per stage: payments a second,
// PostgreSQL's CPU a payment (its backends over the measure, from /proc) and the whole machine's
// (this process's JavaScript included). At 1,000 payments a second, each millisecond of
// PostgreSQL's CPU a payment is half of a 2-core machine.
//   pnpm exec tsx bench/pg-floor.ts [workers=8] [seconds=10] [rounds=3] [batch=8]
// PG_FLOOR_STAGES=settlement,notifier runs only those; PG_FLOOR_SQL="…" applies a schema change to
// try after the migrations (the variant's rounds are then run apart and compared by hand).
import { randomUUID } from "node:crypto";
import { busTopology } from "../packages/bus/src/topology.js";
import { createSql } from "../packages/db/src/client.js";
import { newId } from "../packages/db/src/ids.js";
import { migrate } from "../packages/db/src/migrate.js";
import { enqueueOutbox } from "../packages/db/src/outbox.js";
import { decide, initialPaymentState } from "../packages/domain/src/index.js";
import { insertPayments, type PaymentRow, stateOf } from "../packages/payments/src/payment-row.js";
import { insertWalletWithState } from "../services/api/src/routes/checkout/wallet-statements.js";
import { paymentMessagesOnce } from "../services/settlement/src/payment-messages-once.js";
import { createBenchDatabase } from "./harness.js";
import { pgbenchInsertRate } from "./load-tools.js";
import { cpuSeconds, machineBusySeconds, machineLine } from "./machine.js";

const [workers = 8, seconds = 10, rounds = 3, batch = 8] = process.argv.slice(2).map(Number);
const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const topology = busTopology("floor");
const STAGES = ["api", "settlement", "notifier"] as const;
// A schema change to try, applied after the migrations: PG_FLOOR_SQL="alter table …".
const extraSql = process.env["PG_FLOOR_SQL"];
type Stage = (typeof STAGES)[number];
const stages = (process.env["PG_FLOOR_STAGES"]?.split(",") ?? [...STAGES]) as Stage[];
for (const stage of stages) {
  if (!STAGES.includes(stage)) throw new Error(`PG_FLOOR_STAGES: no stage "${stage}" (${STAGES.join(", ")})`);
}
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

async function run(round: number, stage: Stage) {
  const db = await createBenchDatabase(adminUrl, `pgfloor${round}${stage}`, workers * 2);
  const { sql } = db;
  try {
    await migrate(sql);
    if (extraSql) await sql.unsafe(extraSql);
    // One merchant, as in a flash sale: every payment moves its balance.
    const merchantId = newId("mer");
    await sql`insert into merchants (id, email, business_name, password_hash)
      values (${merchantId}, ${`${merchantId}@example.test`}, 'Floor', 'x')`;
    const endpointId = newId("whk");
    await sql`insert into webhook_endpoints (id, merchant_id, mode, url, secret_sealed)
      values (${endpointId}, ${merchantId}, 'test', 'http://127.0.0.1:9/hook', ${Buffer.alloc(60)})`;
    const deps = { sql, topology, log: silent, publicBaseUrl: "http://127.0.0.1" };
    const settle = paymentMessagesOnce(deps, "settlement-payment-commands");
    let derivation = 0;
    const claimToken = randomUUID();

    /** The API's generate-wallet for a first choice: the wallet and the state in one statement. */
    async function generateWallet(payment: PaymentRow) {
      await checkoutLoad(payment.id);
      const address = `floor${randomUUID().replaceAll("-", "")}`;
      const index = derivation++;
      const decision = decide(stateOf(payment), {
        type: "wallet_assigned",
        chain: "solana",
        coin: "USDC",
        address,
        amountDue: 10_000_000n,
        quote: null,
      });
      await insertWalletWithState(
        sql,
        {
          paymentId: payment.id,
          mode: "test",
          chain: "solana",
          coin: "USDC",
          derivationIndex: index,
          address,
          amountDue: 10_000_000n,
          quote: null,
        },
        payment,
        decision.state,
      );
    }

    /** The checkout routes' read of a payment with its current wallet (generate-wallet, simulate). */
    function checkoutLoad(id: string) {
      return sql`
        select p.*, m.business_name as merchant_business_name, w.chain as wallet_chain, w.coin as wallet_coin,
          w.address as wallet_address, w.amount_due as wallet_amount_due,
          w.quote_rate_micros as wallet_quote_rate_micros, w.quote_expires_at as wallet_quote_expires_at,
          null::int as wallet_count
        from payments p left join merchants m on m.id = p.merchant_id
        left join lateral (
          select chain, coin, address, amount_due, quote_rate_micros, quote_expires_at from deposit_wallets d
          where d.payment_id = p.id and d.address = p.state->'wallet'->>'address') w on true
        where p.id = ${id}`;
    }

    /** An outbox relay's batch (packages/bus, outbox-relay.ts) without the publish. */
    function relay() {
      return sql.begin(async (tx) => {
        const rows = await tx<{ seq: bigint; id: string; subject: string; payload: { event?: unknown } }[]>`
          select seq, id, subject, payload, (select epoch from bus_epoch) as epoch from outbox
          where published_at is null order by seq limit 256 for update skip locked`;
        if (rows.length > 0)
          await tx`update outbox set published_at = now()
            where seq = any(${rows.map((r) => r.seq.toString())}::bigint[])`;
        return rows;
      });
    }

    /** The notifier: ingest of the events as deliveries, one claim, the outcomes recorded. */
    async function notify(events: { id: string; type: string; payload: string }[]) {
      if (events.length === 0) return;
      await sql`select id, merchant_id, mode, events from webhook_endpoints
        where merchant_id = any(${[merchantId]}::text[]) and deleted_at is null`;
      // The message id is the event's (the outbox row's id, JetStream's message id).
      const rows = events.map((e) => ({ deliveryId: newId("whd"), ...e }));
      await sql`
        with fresh as (
          insert into processed_messages (consumer, message_id)
          select 'notifier', unnest(${rows.map((r) => r.id)}::text[])
          on conflict do nothing returning message_id)
        insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, retry_until)
        select d.id, ${endpointId}, d.event_id, d.event_type, d.payload, 'pending', now() + interval '3 days'
        from unnest(${rows.map((r) => r.deliveryId)}::text[], ${rows.map((r) => r.id)}::text[],
                    ${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.type)}::text[],
                    ${rows.map((r) => r.payload)}::text[])
          as d(id, message_id, event_id, event_type, payload)
        where d.message_id in (select message_id from fresh)
        on conflict (event_id, endpoint_id) do nothing`;
      const claimed = await sql<{ id: string; attempts: number }[]>`
        update webhook_deliveries d
        set next_attempt_at = now() + 30000 * interval '1 millisecond', claim_token = ${claimToken},
            updated_at = now()
        from (
          select id, next_attempt_at from webhook_deliveries
          where status = 'pending' and next_attempt_at <= now()
          order by next_attempt_at
          limit ${rows.length}
          for update skip locked) due, webhook_endpoints e
        where d.id = due.id and e.id = d.endpoint_id
        returning d.id, d.attempts`;
      if (claimed.length === 0) return;
      const started = new Date().toISOString();
      await sql.begin((tx) => [
        tx`
          insert into webhook_delivery_attempts
            (delivery_id, attempt, started_at, status_code, latency_ms, response_excerpt, error)
          select * from unnest(
            ${claimed.map((c) => c.id)}::text[], ${claimed.map((c) => c.attempts + 1)}::int[],
            ${claimed.map(() => started)}::timestamptz[], ${claimed.map(() => 200)}::int[],
            ${claimed.map(() => 3)}::int[], ${claimed.map(() => "ok")}::text[],
            ${claimed.map(() => null) as unknown as string[]}::text[])`,
        tx`
          update webhook_deliveries d
          set status = 'succeeded', attempts = v.attempt, next_attempt_at = now(), last_attempt_at = v.started,
              last_status_code = 200, claim_token = null, updated_at = now()
          from (select unnest(${claimed.map((c) => c.id)}::text[]) as id,
                       unnest(${claimed.map((c) => c.attempts + 1)}::int[]) as attempt,
                       unnest(${claimed.map(() => started)}::timestamptz[]) as started) v
          where d.id = v.id and d.claim_token = ${claimToken}`,
      ]);
    }

    /** `batch` test payments from create through `stage` (see STAGES). */
    async function payments(stage: Stage): Promise<number> {
      const created = await insertPayments(
        sql,
        Array.from({ length: batch }, () => ({
          state: initialPaymentState({
            id: randomUUID(),
            mode: "test",
            currency: "USD",
            amount: 1000n,
            fee: 10n,
            usdRate: null,
            expiresAt: Date.now() + 3_600_000,
          }),
          merchantId,
          description: null,
          redirectUrl: null,
        })),
      );
      const commands: string[] = [];
      for (const payment of created) {
        await generateWallet(payment);
        const [reloaded] = await checkoutLoad(payment.id);
        if (!reloaded) throw new Error(`payment ${payment.id} is gone`);
        const id = newId("cmd");
        commands.push(id);
        await enqueueOutbox(sql, [
          {
            id,
            subject: topology.subjects.paymentCommand("simulate"),
            payload: { payment_id: payment.id, message: { type: "simulate", outcome: "paid" } },
          },
        ]);
      }
      if (stage === "api") return created.length;
      await relay();
      // Settlement's consumer: commands arriving together share one transaction.
      await Promise.all(
        created.map((payment, n) =>
          settle(commands[n]!, { paymentId: payment.id, message: { type: "simulate", outcome: "paid" } }),
        ),
      );
      const published = await relay();
      if (stage === "settlement") return created.length;
      await notify(
        published
          .filter((r) => r.payload.event !== undefined)
          .map((r) => ({
            id: r.id,
            type: r.subject.slice(topology.subjects.event("").length),
            payload: JSON.stringify(r.payload.event),
          })),
      );
      return created.length;
    }

    // Connections, prepared statements and the ledger's accounts, before the measure.
    await Promise.all(Array.from({ length: workers }, () => payments(stage)));
    const probe = createSql({ url: db.url, max: 1, applicationName: "pg-floor-probe" });
    // Every backend of the database but the probe's own, at the start and at the end (the pool
    // may open more during the measure; those count whole).
    const backends = async () =>
      (
        await probe<{ pid: number }[]>`select pid from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`
      ).map((r) => r.pid);
    const cpuBefore = new Map((await backends()).map((pid) => [pid, cpuSeconds([pid])]));
    const machineBefore = machineBusySeconds();
    let done = 0;
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (performance.now() < until) {
          // Not `done += await …`: that reads `done` before the await and drops the other workers' counts.
          const finished = await payments(stage);
          done += finished;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const machineMs = ((machineBusySeconds() - machineBefore) / done) * 1000;
    let pgSeconds = 0;
    for (const pid of await backends()) pgSeconds += cpuSeconds([pid]) - (cpuBefore.get(pid) ?? 0);
    await probe.end();
    const pgMs = (pgSeconds / done) * 1000;
    if (stage !== "api") {
      const [open] = await sql<
        { n: number }[]
      >`select count(*)::int as n from payments where status <> 'completed'`;
      if (open!.n !== 0) throw new Error(`${open!.n} payments did not complete`);
    }
    return { perSecond: done / elapsed, pgMs, machineMs };
  } finally {
    await db.drop();
  }
}

process.stdout.write(`${machineLine()}; ${workers} workers, batches of ${batch}, ${seconds} s a stage\n`);
const pgMsByStage = new Map<Stage, number[]>();
for (let round = 1; round <= rounds; round++) {
  for (const stage of stages) {
    const r = await run(round, stage);
    pgMsByStage.set(stage, [...(pgMsByStage.get(stage) ?? []), r.pgMs]);
    process.stdout.write(
      `round ${round}, through ${stage}: ${r.perSecond.toFixed(0)} payments/s, PostgreSQL ${r.pgMs.toFixed(3)} ms of CPU a payment, machine ${r.machineMs.toFixed(3)} ms\n`,
    );
  }
}
// The machine's yardstick: pgbench's single-row INSERT, 16 clients, which fills both cores. A
// payment's PostgreSQL CPU in those inserts' worth of machine time compares across machines.
const yardstick = await createBenchDatabase(adminUrl, "pgfloorpgbench", 1);
try {
  const tps = await pgbenchInsertRate(yardstick.sql, yardstick.url, 16, 5);
  const worth = (ms: number) => ((ms / 1000) * tps) / 2;
  process.stdout.write(`pgbench single-row INSERT, 16 clients: ${tps.toFixed(0)} tps\n`);
  for (const [stage, values] of pgMsByStage) {
    process.stdout.write(
      `through ${stage}: PostgreSQL's CPU a payment worth ${values.map((ms) => worth(ms).toFixed(0)).join(", ")} of those inserts\n`,
    );
  }
} finally {
  await yardstick.drop();
}
