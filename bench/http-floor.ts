// The ceiling any Express API meets on this machine, next to the payments bench's reference: the
// same wrk closed loop against a server that only reads a JSON body and answers 201 (node:http
// alone, then Express 5 with express.json()), and pgbench's single-row INSERT rate with the same
// number of clients, in the same run.
//   pnpm exec tsx bench/http-floor.ts [clients=16] [seconds=10] [--record]
// Uses DATABASE_URL when set, else the machine's PostgreSQL. Needs Debian's wrk and pgbench.
import { createBenchDatabase, recordResults } from "./harness.js";
import { measureFloorServer, pgbenchInsertRate } from "./load-tools.js";
import { machineLine } from "./machine.js";

const clients = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const body = JSON.stringify({ amount: 12.5, currency: "USD", description: "bench" });
const measure = (variant: "node-http" | "express") => measureFloorServer(variant, { clients, seconds, body });

const db = await createBenchDatabase(adminUrl, "floor", 1);
try {
  const servers = [await measure("node-http"), await measure("express")];
  const pgRate = await pgbenchInsertRate(db.sql, db.url, clients, seconds);
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
  if (process.argv.includes("--record")) recordResults("RESULTS-http-floor.md", lines);
} finally {
  await db.drop();
}
