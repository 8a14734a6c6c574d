// PostgreSQL's part of a test payment, alone: the statements the pipeline sends for one payment in
// test mode, sent by `workers` concurrent callers with nothing else on the machine (no HTTP, no NATS,
// none of the services' processes), in batches of `batch` payments where the pipeline batches.
// Two designs, each in its own module: today's statements (pg-floor-today.ts) and the lean write
// path of issue 45 (pg-floor-lean.ts). Three stages (pg-floor-stages.ts), each run on a database of
// its own and measured alone, designs and stages in turn every round. The difference between two
// stages is what the later one adds. Per stage: payments a second, PostgreSQL's CPU a payment (its
// backends over the measure, from /proc) and the whole machine's (this process's JavaScript
// included). At 1,000 payments a second, each millisecond of PostgreSQL's CPU a payment is half of
// a 2-core machine.
//   pnpm exec tsx bench/pg-floor.ts [workers=8] [seconds=10] [rounds=3] [batch=8]
// PG_FLOOR_DESIGNS=today,lean (both by default); PG_FLOOR_STAGES=settlement,notifier runs only
// those; PG_FLOOR_SQL="…" applies a schema change to try after the migrations.
import { busTopology } from "../packages/bus/src/topology.js";
import { createSql } from "../packages/db/src/client.js";
import { newId } from "../packages/db/src/ids.js";
import { migrate } from "../packages/db/src/migrate.js";
import { createBenchDatabase } from "./harness.js";
import { pgbenchInsertRate } from "./load-tools.js";
import { cpuSeconds, machineBusySeconds, machineLine } from "./machine.js";
import { leanFlow } from "./pg-floor-lean.js";
import { type FloorContext, type FloorFlow, STAGES, type Stage } from "./pg-floor-stages.js";
import { todayFlow } from "./pg-floor-today.js";

const [workers = 8, seconds = 10, rounds = 3, batch = 8] = process.argv.slice(2).map(Number);
const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres";
const topology = busTopology("floor");
const DESIGNS = { today: async (ctx: FloorContext) => todayFlow(ctx), lean: leanFlow } as const;
type Design = keyof typeof DESIGNS;
const extraSql = process.env["PG_FLOOR_SQL"];
const stages = (process.env["PG_FLOOR_STAGES"]?.split(",") ?? [...STAGES]) as Stage[];
for (const stage of stages) {
  if (!STAGES.includes(stage)) throw new Error(`PG_FLOOR_STAGES: no stage "${stage}" (${STAGES.join(", ")})`);
}
const designs = (process.env["PG_FLOOR_DESIGNS"]?.split(",") ?? Object.keys(DESIGNS)) as Design[];
for (const design of designs) {
  if (!(design in DESIGNS)) throw new Error(`PG_FLOOR_DESIGNS: no design "${design}" (today, lean)`);
}

async function run(round: number, design: Design, stage: Stage) {
  const db = await createBenchDatabase(adminUrl, `pgfloor${round}${design}${stage}`, workers * 2);
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
    const flow: FloorFlow = await DESIGNS[design]({ sql, topology, merchantId, endpointId, batch });
    const payments = (s: Stage) => flow.payments(s);

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
    await flow.drain(stage);
    const elapsed = (performance.now() - started) / 1000;
    const machineMs = ((machineBusySeconds() - machineBefore) / done) * 1000;
    let pgSeconds = 0;
    for (const pid of await backends()) pgSeconds += cpuSeconds([pid]) - (cpuBefore.get(pid) ?? 0);
    await probe.end();
    const pgMs = (pgSeconds / done) * 1000;
    const open = stage === "api" ? 0 : await flow.unfinished();
    if (open !== 0) throw new Error(`${design}: ${open} payments did not complete`);
    return { perSecond: done / elapsed, pgMs, machineMs };
  } finally {
    await db.drop();
  }
}

/** The machine's yardstick: pgbench's single-row INSERT, 16 clients, which fills both cores. */
async function yardstick(): Promise<number> {
  const db = await createBenchDatabase(adminUrl, "pgfloorpgbench", 1);
  try {
    return await pgbenchInsertRate(db.sql, db.url, 16, 5);
  } finally {
    await db.drop();
  }
}

process.stdout.write(`${machineLine()}; ${workers} workers, batches of ${batch}, ${seconds} s a stage\n`);
// Before and after the rounds, and their mean: a shared machine's rate swings within the hour.
const tpsBefore = await yardstick();
const pgMsByStage = new Map<string, number[]>();
for (let round = 1; round <= rounds; round++) {
  for (const design of designs) {
    for (const stage of stages) {
      const r = await run(round, design, stage);
      const key = `${design} through ${stage}`;
      pgMsByStage.set(key, [...(pgMsByStage.get(key) ?? []), r.pgMs]);
      process.stdout.write(
        `round ${round}, ${key}: ${r.perSecond.toFixed(0)} payments/s, PostgreSQL ${r.pgMs.toFixed(3)} ms of CPU a payment, machine ${r.machineMs.toFixed(3)} ms\n`,
      );
    }
  }
}
const tpsAfter = await yardstick();
const tps = (tpsBefore + tpsAfter) / 2;
// A payment's PostgreSQL CPU in those inserts' worth of machine time compares across machines.
const worth = (ms: number) => ((ms / 1000) * tps) / 2;
process.stdout.write(
  `pgbench single-row INSERT, 16 clients: ${tpsBefore.toFixed(0)} tps before, ${tpsAfter.toFixed(0)} after, mean ${tps.toFixed(0)}\n`,
);
for (const [key, values] of pgMsByStage) {
  process.stdout.write(
    `${key}: PostgreSQL's CPU a payment worth ${values.map((ms) => worth(ms).toFixed(1)).join(", ")} of those inserts\n`,
  );
}
