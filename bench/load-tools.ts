// The two load generators the HTTP benches share: wrk for closed loops and pgbench for the
// database reference.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Sql } from "@gateway/db";
import { findExecutable } from "@gateway/local-infra";

export interface WrkResult {
  /** Requests per second over the run. */
  rate: number;
  p50: number;
  p99: number;
}

/**
 * A closed loop driven by wrk (C, from Debian): a Node client on this 2-core machine would measure
 * itself more than the server. wrk's --latency gives the percentiles, in ms here. Any non-2xx
 * answer fails the run.
 */
export function runWrk(options: {
  url: string;
  clients: number;
  seconds: number;
  body: string;
  headers: Record<string, string>;
}): WrkResult {
  const lua = path.join("/tmp", `gw-bench-${process.pid}.lua`);
  writeFileSync(
    lua,
    [
      'wrk.method = "POST"',
      `wrk.body = '${options.body}'`,
      ...Object.entries(options.headers).map(([name, value]) => `wrk.headers["${name}"] = "${value}"`),
    ].join("\n"),
  );
  const wrk = findExecutable("wrk") ?? "/usr/bin/wrk";
  const text = execFileSync(
    wrk,
    ["-t2", `-c${options.clients}`, `-d${options.seconds}s`, "--latency", "-s", lua, options.url],
    { encoding: "utf8" },
  );
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors:\n${text}`);
  const ms = (label: string) => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(text);
    if (!m) return Number.NaN;
    const value = Number(m[1]);
    return m[2] === "us" ? value / 1000 : m[2] === "s" ? value * 1000 : value;
  };
  return { rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]), p50: ms("50"), p99: ms("99") };
}

/**
 * pgbench's reference: `clients` connections inserting one row each into a one-column-key table,
 * prepared statements, for `seconds`. `sql` and `dbUrl` name the same database; the table is made there.
 */
export async function pgbenchInsertRate(sql: Sql, dbUrl: string, clients: number, seconds: number) {
  const pgbench = findExecutable("pgbench") ?? "/usr/lib/postgresql/15/bin/pgbench";
  await sql`create table if not exists bench_insert (id bigserial primary key, merchant_id text, amount bigint, created_at timestamptz default now())`;
  const script = path.join("/tmp", `gw-bench-${process.pid}.sql`);
  writeFileSync(script, "insert into bench_insert (merchant_id, amount) values ('mer_x', 1250);\n");
  const out = execFileSync(
    pgbench,
    ["-n", "-M", "prepared", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", script, dbUrl],
    { encoding: "utf8" },
  );
  return Number(out.match(/tps = ([\d.]+)/)?.[1] ?? Number.NaN);
}
