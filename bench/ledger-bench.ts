// The ledger's posting: `workers` concurrent callers credit test payments to `merchants`
// merchants, each credit its own SQL transaction as the payment actor posts it (vault, merchant,
// fees; the platform's two accounts shared by every payment, the merchant's by every payment of a
// flash sale). After each run every balance is checked against the transfers. Per round: credits
// a second, PostgreSQL's CPU a credit (its backends for this run, from /proc), and the credit's
// latency, each round on a new throwaway database of the local PostgreSQL (DATABASE_URL's server;
// 127.0.0.1:5432 by default). To compare two versions of the ledger, run it on each by turns.
//   pnpm exec tsx bench/ledger-bench.ts [workers=8] [seconds=10] [rounds=3] [merchants=20]
import { randomUUID } from "node:crypto";
import { createSql } from "../packages/db/src/client.js";
import { newId } from "../packages/db/src/ids.js";
import { migrate, readMigrations } from "../packages/db/src/migrate.js";
import { checkLedger } from "../packages/ledger/src/balances.js";
import { creditPayment } from "../packages/ledger/src/movements.js";
import { cpuSeconds, machineLine, percentile } from "./machine.js";

const [workers = 8, seconds = 10, rounds = 3, merchantCount = 20] = process.argv.slice(2).map(Number);
const server = new URL(process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres");

async function run(round: number) {
  const database = `ledger_bench_${process.pid}_${round}`;
  const admin = createSql({ url: server.toString(), max: 1 });
  await admin.unsafe(`create database ${database}`);
  const url = new URL(server);
  url.pathname = `/${database}`;
  const sql = createSql({ url: url.toString(), max: workers, applicationName: "ledger-bench" });
  try {
    await migrate(sql, readMigrations());
    const merchants: string[] = [];
    for (let i = 0; i < merchantCount; i++) {
      const id = newId("mer");
      await sql`insert into merchants (id, email, business_name, password_hash)
        values (${id}, ${`${id}@example.test`}, 'Shop', 'x')`;
      merchants.push(id);
    }
    const credit = (i: number) =>
      sql.begin((tx) =>
        creditPayment(tx, {
          mode: "test",
          chain: "solana",
          coin: "USDC",
          paymentId: randomUUID(),
          merchantId: merchants[i % merchants.length]!,
          gross: 10_000_000n,
          fee: 100_000n,
          net: 9_900_000n,
        }),
      );
    // Every connection opened and every account created before the measure.
    await Promise.all(Array.from({ length: workers * 2 }, (_, i) => credit(i)));
    const backends = (
      await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${database}`
    ).map((r) => r.pid);
    const cpuBefore = cpuSeconds(backends);
    const latencies: number[] = [];
    let n = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await credit(n++);
          latencies.push(performance.now() - started);
        }
      }),
    );
    const pgCpu = cpuSeconds(backends) - cpuBefore;
    const { driftedAccounts } = await checkLedger(sql);
    if (driftedAccounts.length > 0)
      throw new Error(`${driftedAccounts.length} balances drifted from the transfers`);
    latencies.sort((a, b) => a - b);
    return {
      perSecond: latencies.length / seconds,
      pgMicrosPerCredit: (pgCpu / latencies.length) * 1e6,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end();
  }
}

process.stdout.write(
  `${machineLine()}; ${workers} workers, ${merchantCount} merchants, ${seconds} s a run\n`,
);
for (let round = 1; round <= rounds; round++) {
  const r = await run(round);
  process.stdout.write(
    `round ${round}: ${r.perSecond.toFixed(0)} credits/s, PostgreSQL ${r.pgMicrosPerCredit.toFixed(0)} µs of CPU a credit, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms\n`,
  );
}
