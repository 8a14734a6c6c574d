import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const ROOT = path.resolve(import.meta.dirname, "../../..");
// Resolved with require's algorithm: vitest's module runner has no import.meta.resolve.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export interface ManagedProcess {
  name: string;
  /** Starts (or restarts) the process and waits until readyUrl answers 200. */
  start(): Promise<void>;
  /** SIGKILL: a crash, no shutdown hook runs. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  alive(): boolean;
  /** Every line the process wrote to stdout and stderr, across restarts. */
  output(): string;
  starts: number;
  /**
   * Exits nobody asked for (a crash), each with the end of its output. Like a supervisor (a
   * Kubernetes restart policy), the process is started again after one; a crash is a finding.
   */
  crashes: string[];
}

/**
 * A service started from its src/main.ts as its own Node process (tsx as a loader, not a wrapper
 * process, so SIGKILL reaches the service itself), restartable with the same environment.
 */
export function managedProcess(
  name: string,
  dir: string,
  env: Record<string, string>,
  readyUrl: string,
): ManagedProcess {
  let child: ChildProcess | undefined;
  let log = "";
  /** The child we are stopping on purpose; its exit is not a crash. */
  let stopping: ChildProcess | undefined;
  /** The child that answered ready; an exit before that is a failed start, not a crash. */
  let ready: ChildProcess | undefined;
  const proc: ManagedProcess = {
    name,
    starts: 0,
    crashes: [],
    async start() {
      const c = spawn(process.execPath, ["--import", TSX_LOADER, "src/main.ts"], {
        cwd: path.join(ROOT, dir),
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "warn", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = c;
      proc.starts++;
      c.stdout?.on("data", (d) => (log += d));
      c.stderr?.on("data", (d) => (log += d));
      c.once("exit", (code, signal) => {
        if (stopping === c || ready !== c) return;
        proc.crashes.push(`${name} exited by itself (code ${code}, signal ${signal}):\n${log.slice(-1500)}`);
        setTimeout(() => {
          if (child === c) proc.start().catch(() => undefined);
        }, 500);
      });
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (c.exitCode !== null || c.signalCode !== null) {
          throw new Error(
            `${name} exited while starting (code ${c.exitCode}, signal ${c.signalCode}):\n${log.slice(-3000)}`,
          );
        }
        const ok = await fetch(readyUrl).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) {
          ready = c;
          return;
        }
        if (Date.now() > deadline) throw new Error(`${name} not ready:\n${log.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
    alive: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    output: () => log,
  };
  function signal(sig: NodeJS.Signals): Promise<void> {
    const c = child;
    return new Promise((resolve) => {
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      stopping = c;
      c.once("exit", () => resolve());
      c.kill(sig);
    });
  }
  return proc;
}
