// Signer audit heads recorded under concurrent signing: every signature's head must be committed
// before the signature is used (withAuditHeadCheck), and all of a caller's heads go to one row.
// `workers` signers each take a signature (a 0–4 ms pause, about a signer call here) and record
// its head, for `seconds`; once with the store (packages/db/src/signer-audit-heads.ts), once with
// one upsert per head as each was written before, alternated `rounds` times, on a throwaway
// database of the local PostgreSQL (DATABASE_URL's server; 127.0.0.1:5432 by default).
//   pnpm exec tsx bench/audit-head-bench.ts [workers=16] [seconds=5] [rounds=3]
import { cpus } from "node:os";
import { createSql, type Sql } from "../packages/db/src/client.js";
import { createAuditHeadStore, type StoredAuditHead } from "../packages/db/src/signer-audit-heads.js";
import { percentile } from "./machine.js";

const [workers = 16, seconds = 5, rounds = 3] = process.argv.slice(2).map(Number);
const server = new URL(process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres");
const database = `audit_head_bench_${process.pid}`;

type RecordHead = (head: StoredAuditHead) => Promise<void>;

/**
 * One write per head, as every signature cost before heads were written together: the store's
 * own statement, through a store of its own for each head (nothing in flight to join).
 */
const oneWriteEach =
  (sql: Sql, caller: string): RecordHead =>
  (head) =>
    createAuditHeadStore(sql, caller).record(head);

async function run(record: RecordHead) {
  let seq = 0n;
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        await new Promise((r) => setTimeout(r, Math.random() * 4));
        const head = { seq: ++seq, hash: `h${seq}` };
        const started = performance.now();
        await record(head);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

const admin = createSql({ url: server.toString(), max: 1 });
await admin.unsafe(`create database ${database}`);
const url = new URL(server);
url.pathname = `/${database}`;
const pool = createSql({ url: url.toString(), max: 10 });
/** Statements sent to PostgreSQL, each an upsert and its commit. */
let upserts = 0;
const sql = ((strings: TemplateStringsArray, ...values: unknown[]) => {
  upserts++;
  return (pool as unknown as (s: TemplateStringsArray, ...v: unknown[]) => unknown)(strings, ...values);
}) as unknown as Sql;
try {
  await pool`create table signer_audit_heads (caller text primary key, seq bigint not null,
    hash text not null, seen_at timestamptz not null default now())`;
  process.stdout.write(
    `${cpus()[0]?.model ?? "?"}, ${cpus().length} cores; ${workers} signers, ${seconds} s a run\n`,
  );
  for (let round = 1; round <= rounds; round++) {
    for (const [name, record] of [
      ["one upsert per head", oneWriteEach(sql, `each-${round}`)],
      ["the store", createAuditHeadStore(sql, `store-${round}`).record],
    ] as const) {
      const before = upserts;
      const r = await run(record);
      const perSignature = (upserts - before) / (r.perSecond * seconds);
      process.stdout.write(
        `round ${round}, ${name}: ${r.perSecond.toFixed(0)} signatures/s, ${perSignature.toFixed(2)} upserts a signature, record p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms\n`,
      );
    }
  }
} finally {
  await pool.end();
  await admin.unsafe(`drop database ${database} with (force)`);
  await admin.end();
}
