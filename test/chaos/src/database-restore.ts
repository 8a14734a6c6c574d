// The `database-restored` fault: PostgreSQL put back, whole, to a backup taken mid-run, the way
// an operator restores one (docs/operations.md, "Restoring PostgreSQL from a backup"): the
// services that use the database stop, every table and sequence goes back to the backup, the
// runbook's `after-restore` step runs with the signer's record, and the services start again.
// The claim it tests: the signer, not PostgreSQL, stops a second sweep, refund or payout, and
// the books still equal the vaults once the system has seen the chains again (docs/signer.md).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { retryWhileUnavailable, type Sql } from "@gateway/db";
import { ROOT } from "./managed-process.js";

/** What one backup held, for the run's figures. */
export interface BackupFigures {
  tables: number;
  rows: number;
  payments: number;
  payouts: number;
}

const publicTables = async (sql: Sql) =>
  (
    await sql<{ name: string }[]>`
      select tablename as name from pg_tables where schemaname = 'public' order by tablename`
  ).map((r) => r.name);

/**
 * A consistent copy of every table and sequence, in one repeatable-read snapshot as pg_dump takes
 * it, kept in the schema `name` of the same server. pg_dump itself is not used: the machine's
 * client is older than the chaos cluster's embedded server, which pg_dump refuses.
 */
export async function backupDatabase(sql: Sql, name: string): Promise<BackupFigures> {
  return retryWhileUnavailable(
    () =>
      sql.begin("isolation level repeatable read", async (tx) => {
        await tx`drop schema if exists ${tx(name)} cascade`;
        await tx`create schema ${tx(name)}`;
        let rows = 0;
        const tables = await publicTables(tx as unknown as Sql);
        for (const table of tables) {
          rows += (await tx`create table ${tx(name)}.${tx(table)} as select * from public.${tx(table)}`)
            .count;
        }
        await tx`create table ${tx(name)}.sequences as
          select sequencename as name, last_value, start_value from pg_sequences where schemaname = 'public'`;
        const [counts] = await tx<{ payments: number; payouts: number }[]>`
          select (select count(*) from payments)::int as payments, (select count(*) from payouts)::int as payouts`;
        return { tables: tables.length, rows, payments: counts!.payments, payouts: counts!.payouts };
      }),
    60_000,
  );
}

/**
 * Every table emptied and loaded from the backup, and every sequence set back, in one
 * transaction; foreign keys are not checked during the load (pg_restore's --disable-triggers).
 */
export async function restoreDatabase(sql: Sql, name: string): Promise<void> {
  await retryWhileUnavailable(
    () =>
      sql.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        const tables = await publicTables(tx as unknown as Sql);
        await tx`truncate ${tx(tables.map((t) => `public.${t}`))}`;
        for (const table of tables) {
          await tx`insert into public.${tx(table)} overriding system value select * from ${tx(name)}.${tx(table)}`;
        }
        const sequences = await tx<{ name: string; last_value: bigint | null; start_value: bigint }[]>`
          select name, last_value, start_value from ${tx(name)}.sequences`;
        for (const s of sequences) {
          // A sequence never used is put back to "never used": its next value is its start.
          if (s.last_value === null) await tx`select setval(${`public.${s.name}`}, ${s.start_value}, false)`;
          else await tx`select setval(${`public.${s.name}`}, ${s.last_value}, true)`;
        }
        await tx`drop schema ${tx(name)} cascade`;
      }),
    60_000,
  );
}

/** Runs a repository command as an operator would (`node --import tsx <file> args…`). */
export function runCommand(file: string, args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, file), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

/**
 * The runbook's two commands: `signer record` on the signer's host (read while the signer runs:
 * a line being written at that moment fails the verification, and the read is made again), then
 * `after-restore` with what it printed. Returns after-restore's lines and the record's file, for
 * `runChainsOnly` once the run has settled. Exit 1 is accepted only when every line it stands for
 * is a transfer not final on chain yet: the runbook's answer is the later chains-only run.
 */
export async function runAfterRestore(options: {
  auditLog: string;
  dir: string;
  env: Record<string, string>;
}): Promise<{ lines: string[]; recordFile: string }> {
  let record = runCommand("signer/src/cli.ts", ["record", options.auditLog], {});
  for (let attempt = 1; record.status !== 0 && attempt < 5; attempt++) {
    await new Promise((r) => setTimeout(r, 200));
    record = runCommand("signer/src/cli.ts", ["record", options.auditLog], {});
  }
  if (record.status !== 0) throw new Error(`signer record failed: ${record.out}${record.err}`);
  const recordFile = path.join(options.dir, `signer-record-${Date.now()}.jsonl`);
  writeFileSync(recordFile, record.out);
  return { lines: afterRestoreCommand(recordFile, [], options.env), recordFile };
}

/** `after-restore --chains-only`: books what has become final on chain since the restore. */
export function runChainsOnly(recordFile: string, env: Record<string, string>): string[] {
  return afterRestoreCommand(recordFile, ["--chains-only"], env);
}

function afterRestoreCommand(recordFile: string, extra: string[], env: Record<string, string>): string[] {
  const run = runCommand("scripts/after-restore.ts", ["--signer-record", recordFile, ...extra], env);
  const lines = run.out
    .trim()
    .split("\n")
    .filter((l) => l !== "");
  const waiting = (l: string) => l.startsWith("NOT booked:") && l.includes("not final yet and can still be");
  const needsOperator = lines.some((l) => l.startsWith("NOT ") && !waiting(l));
  if (run.status !== 0 && (run.status !== 1 || needsOperator))
    throw new Error(`after-restore failed: ${run.out}${run.err}`);
  return lines;
}
