// What the HTTP benches share: wrk for closed loops, pgbench for the database reference, and the
// bare HTTP servers (bench/http-floor-server.ts) a real endpoint is measured against.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Sql } from "@gateway/db";
import { findExecutable, freePort } from "@gateway/local-infra";
import { cpuSeconds } from "./machine.js";

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
  /** Sends an Idempotency-Key, a new one on every request. */
  keyed?: boolean;
}): WrkResult {
  const lua = path.join("/tmp", `gw-bench-${process.pid}.lua`);
  writeFileSync(
    lua,
    [
      'wrk.method = "POST"',
      `wrk.body = '${options.body}'`,
      ...Object.entries(options.headers).map(([name, value]) => `wrk.headers["${name}"] = "${value}"`),
      ...(options.keyed ? uniqueKeys(`${process.pid}-${Date.now()}`) : []),
    ].join("\n"),
  );
  const wrk = findExecutable("wrk") ?? "/usr/bin/wrk";
  let text: string;
  try {
    text = execFileSync(
      wrk,
      ["-t2", `-c${options.clients}`, `-d${options.seconds}s`, "--latency", "-s", lua, options.url],
      { encoding: "utf8" },
    );
  } finally {
    rmSync(lua, { force: true });
  }
  if (/Non-2xx/.test(text)) throw new Error(`wrk saw errors:\n${text}`);
  const ms = (label: string) => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(text);
    if (!m) return Number.NaN;
    const value = Number(m[1]);
    return m[2] === "us" ? value / 1000 : m[2] === "s" ? value * 1000 : value;
  };
  return { rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]), p50: ms("50"), p99: ms("99") };
}

/** wrk Lua: every request of every thread with an Idempotency-Key of its own. */
function uniqueKeys(run: string): string[] {
  return [
    "local threads = 0",
    "function setup(thread) threads = threads + 1; thread:set('thread', threads) end",
    "local sent = 0",
    "function request()",
    "  sent = sent + 1",
    `  wrk.headers["Idempotency-Key"] = "bench-${run}-" .. thread .. "-" .. sent`,
    "  return wrk.format()",
    "end",
  ];
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
  let out: string;
  try {
    out = execFileSync(
      pgbench,
      ["-n", "-M", "prepared", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", script, dbUrl],
      { encoding: "utf8" },
    );
  } finally {
    rmSync(script, { force: true });
  }
  return Number(out.match(/tps = ([\d.]+)/)?.[1] ?? Number.NaN);
}

export type FloorVariant = "node-http" | "express";

/**
 * One of bench/http-floor-server.ts's servers under the same wrk closed loop as the endpoint it
 * is the floor of: its rate, latency, and its own CPU per request (from /proc).
 */
export async function measureFloorServer(
  variant: FloorVariant,
  options: { clients: number; seconds: number; body: string },
): Promise<WrkResult & { variant: FloorVariant; cpuPerRequest: number }> {
  const port = await freePort();
  const root = path.resolve(import.meta.dirname, "..");
  const tsxLoader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
  const server: ChildProcess = spawn(
    process.execPath,
    ["--import", tsxLoader, path.join(import.meta.dirname, "http-floor-server.ts"), variant, String(port)],
    { stdio: "inherit" },
  );
  try {
    const url = `http://127.0.0.1:${port}/payments`;
    for (let i = 0; ; i++) {
      const up = await fetch(url, { method: "POST", body: options.body }).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 100) throw new Error(`${variant} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const wrk = {
      url,
      clients: options.clients,
      body: options.body,
      headers: { "Content-Type": "application/json" },
    };
    runWrk({ ...wrk, seconds: 2 }); // warm-up: JIT
    const before = cpuSeconds([server.pid!]);
    const result = runWrk({ ...wrk, seconds: options.seconds });
    const cpuPerRequest = (cpuSeconds([server.pid!]) - before) / (result.rate * options.seconds);
    return { variant, ...result, cpuPerRequest };
  } finally {
    server.kill("SIGKILL");
  }
}
