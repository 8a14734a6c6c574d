// The ceiling any Express API meets on this machine, next to the payments bench's reference: the
// same wrk closed loop against a server that only reads a JSON body and answers 201 (node:http
// alone, then Express 5 with express.json()), and pgbench's single-row INSERT rate with the same
// number of clients, in the same run.
//   pnpm exec tsx bench/http-floor.ts [clients=16] [seconds=10] [--record]
// Uses DATABASE_URL when set, else the machine's PostgreSQL. Needs Debian's wrk and pgbench.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createSql } from "@gateway/db";
import { freePort } from "@gateway/local-infra";
import { pgbenchInsertRate, runWrk } from "./load-tools.js";
import { machineLine } from "./machine.js";

const clients = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const root = path.resolve(import.meta.dirname, "..");
const tsxLoader = pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href;
const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });

/** CPU seconds a process has used so far, from /proc (Linux, 100 ticks a second). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(variant: string) {
  const port = await freePort();
  const server: ChildProcess = spawn(
    process.execPath,
    ["--import", tsxLoader, path.join(import.meta.dirname, "http-floor-server.ts"), variant, String(port)],
    { stdio: "inherit" },
  );
  try {
    const url = `http://127.0.0.1:${port}/payments`;
    for (let i = 0; ; i++) {
      const up = await fetch(url, { method: "POST", body }).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 100) throw new Error(`${variant} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const wrk = { url, clients, body, headers: { "Content-Type": "application/json" } };
    runWrk({ ...wrk, seconds: 2 }); // warm-up: JIT
    const before = cpuSeconds(server.pid!);
    const result = runWrk({ ...wrk, seconds });
    const cpuPerRequest = (cpuSeconds(server.pid!) - before) / (result.rate * seconds);
    return { variant, ...result, cpuPerRequest };
  } finally {
    server.kill("SIGKILL");
  }
}

const dbName = `gw_floor_${Date.now().toString(36)}`;
const admin = createSql({ url: adminUrl, max: 1 });
await admin.unsafe(`create database ${dbName}`);
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${dbName}`;
const sql = createSql({ url: dbUrl.toString(), max: 1 });
try {
  const servers = [await measure("node-http"), await measure("express")];
  const pgRate = await pgbenchInsertRate(sql, dbUrl.toString(), clients, seconds);
  const lines = [
    `## The HTTP ceiling next to pgbench (${new Date().toISOString().slice(0, 10)})`,
    "",
    `Machine: ${machineLine()}. wrk, the server and PostgreSQL share the cores.`,
    "",
    `| server (reads the JSON body, answers 201 with a payment-sized body; ${clients} clients, ${seconds} s) | req/s | of pgbench | server CPU per request | p99 |`,
    "| - | - | - | - | - |",
    ...servers.map(
      (s) =>
        `| ${s.variant === "node-http" ? "`node:http` alone" : "Express 5 + `express.json()`"} | ${s.rate.toFixed(0)} | ${((s.rate / pgRate) * 100).toFixed(0)} % | ${(s.cpuPerRequest * 1e6).toFixed(0)} µs | ${s.p99.toFixed(1)} ms |`,
    ),
    `| pgbench single-row INSERT, prepared, same clients | ${pgRate.toFixed(0)} tps | 100 % | | |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (process.argv.includes("--record")) {
    const file = path.join(import.meta.dirname, "RESULTS-http-floor.md");
    const marker = "<!-- notes: kept by --record -->";
    let notes: string | undefined;
    try {
      notes = readFileSync(file, "utf8").split(marker)[1];
    } catch {
      // first recording
    }
    writeFileSync(file, `${lines.join("\n")}\n${notes === undefined ? "" : marker + notes}`);
  }
} finally {
  await sql.end();
  await admin.unsafe(`drop database ${dbName} with (force)`);
  await admin.end();
}
