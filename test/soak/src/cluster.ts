// The whole system as `npm start` runs it: the local runner (scripts/local-cluster.ts) in its own
// data folder with every fixed port shifted, so a soak can run beside a developer's cluster.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@gateway/local-infra";

export const ROOT = path.resolve(import.meta.dirname, "../../..");

export interface SoakCluster {
  runnerPid: number;
  dataDir: string;
  /** Where every line the runner and its services printed goes. */
  logFile: string;
  apiUrl: string;
  databaseUrl: string;
  natsUrl: string;
  solanaRpcUrl: string;
  solanaWsUrl: string;
  suiUrl: string;
  /** Health ports that serve Prometheus /metrics, by service. */
  healthUrls: Record<string, string>;
  /** Ctrl-C, as a person would: the runner stops everything it started. */
  stop(): Promise<void>;
}

/** The local runner's embedded PostgreSQL superuser password (packages/local-infra). */
const LOCAL_PG_PASSWORD = "gateway-local";

export async function startSoakCluster(options: { logLevel?: string } = {}): Promise<SoakCluster> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "gw-soak-"));
  const logFile = path.join(dataDir, "cluster.log");
  const log = createWriteStream(logFile);
  const apiPort = await freePort();
  const pgPort = await freePort();
  const natsPort = await freePort();
  // Every fixed port + offset stays below 32768, the start of Linux's ephemeral range.
  const offset = 11_000 + Math.floor(Math.random() * 10_000);
  const port = (p: number) => p + offset;
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  // The runner starts its own PostgreSQL and NATS only when these are unset (vitest sets them).
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  const runner: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/local-cluster.ts"], {
    cwd: ROOT,
    env: {
      ...env,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PORT_OFFSET: String(offset),
      GATEWAY_PG_PORT: String(pgPort),
      GATEWAY_NATS_PORT: String(natsPort),
      PORT: String(apiPort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      LOG_LEVEL: options.logLevel ?? "warn",
      // The soak is one client on one address: the per-IP limit (100/min) would refuse it.
      RATE_LIMIT_PER_MINUTE: "100000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    log.write(chunk);
    if (output.length < 200_000) output += chunk.toString();
  };
  runner.stdout?.on("data", collect);
  runner.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => runner.once("exit", resolve));

  const stop = async () => {
    if (runner.exitCode === null && runner.signalCode === null) {
      runner.kill("SIGINT");
      const timer = setTimeout(() => runner.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => log.end(resolve));
  };

  const deadline = Date.now() + 240_000;
  while (!output.includes("Press Ctrl-C to stop.")) {
    if (runner.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the local runner did not come up (log in ${logFile}):\n${output.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    runnerPid: runner.pid!,
    dataDir,
    logFile,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    databaseUrl: `postgres://postgres:${LOCAL_PG_PASSWORD}@127.0.0.1:${pgPort}/gateway`,
    natsUrl: `nats://127.0.0.1:${natsPort}`,
    solanaRpcUrl: `http://127.0.0.1:${port(8899)}`,
    solanaWsUrl: `ws://127.0.0.1:${port(8900)}`,
    suiUrl: `http://127.0.0.1:${port(9000)}`,
    healthUrls: {
      api: `http://127.0.0.1:${apiPort}`,
      settlement: `http://127.0.0.1:${port(3101)}`,
      notifier: `http://127.0.0.1:${port(3102)}`,
      "watcher-solana": `http://127.0.0.1:${port(3103)}`,
      "watcher-sui": `http://127.0.0.1:${port(3105)}`,
      signer: `http://127.0.0.1:${port(7444)}`,
    },
    stop,
  };
}

/** Removes the data folder (PostgreSQL, JetStream, certificates) once the runner has stopped. */
export function removeClusterData(cluster: SoakCluster): void {
  rmSync(cluster.dataDir, { recursive: true, force: true });
}
