import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { freePort } from "@gateway/local-infra";

export const ROOT = path.resolve(import.meta.dirname, "../../..");
// Node itself with tsx's loader, not the tsx CLI: the CLI runs the service in a child process,
// so a SIGKILL meant for the service would kill only the wrapper and orphan the service.
const TSX_LOADER = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts a service's main.ts as its own process, as the local runner and production do. */
export function startService(
  dir: string,
  env: Record<string, string>,
  /** Node's own options before the loader (a profiler's, say). */
  nodeOptions: string[] = [],
): ServiceProcess {
  return spawnService([...nodeOptions, "--import", TSX_LOADER, "src/main.ts"], path.join(ROOT, dir), {
    ...process.env,
    LOG_LEVEL: "warn",
    ...env,
  });
}

/** `node <args>` in `cwd` with exactly `env`, its output kept for the test to read. */
export function spawnService(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): ServiceProcess {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout?.on("data", (c) => {
    log += c;
  });
  child.stderr?.on("data", (c) => {
    log += c;
  });
  return {
    child,
    output: () => log,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}

export async function waitForReady(url: string, proc: ServiceProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`process exited early:\n${proc.output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready in ${timeoutMs} ms:\n${proc.output()}`);
}

export { freePort };
