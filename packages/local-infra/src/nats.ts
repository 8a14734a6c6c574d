import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { freePort, waitForPort } from "./free-port.js";
import { ensureDebianPackage } from "./system-package.js";

export interface LocalNats {
  url: string;
  port: number;
  storeDir: string;
  /** SIGTERM by default; SIGKILL to simulate a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartNatsOptions {
  /** JetStream store folder; created when missing. */
  storeDir: string;
  /** 0 picks a free port. */
  port?: number;
  log?: (line: string) => void;
  /** Extra nats-server arguments (cluster routes for multi-node tests). */
  args?: string[];
}

/** Starts `nats-server -js` on loopback, installing Debian's nats-server when it is missing. */
export async function startNats(options: StartNatsOptions): Promise<LocalNats> {
  const log = options.log ?? (() => {});
  const binary = ensureDebianPackage("nats-server", "nats-server", log);
  const port = options.port || (await freePort());
  mkdirSync(options.storeDir, { recursive: true });
  const child = spawn(
    binary,
    ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", options.storeDir, ...(options.args ?? [])],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  child.stderr?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) log(line);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  await Promise.race([
    waitForPort(port),
    exited.then((code) => {
      throw new Error(`nats-server exited with code ${code} before listening on ${port}`);
    }),
  ]);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir: options.storeDir,
    stop: (signal) => stopChild(child, 10_000, signal),
  };
}

export function stopChild(
  child: ChildProcess,
  timeoutMs = 10_000,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
