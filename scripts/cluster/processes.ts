import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const COLORS = [36, 33, 35, 32, 34, 91, 92, 93, 94, 95, 96];

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a process whose every output line is printed with its name in front. pino's JSON lines
 * are shortened to level, message and fields so a person can read the interleaved stream.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    colorIndex: number;
    onExit?: (code: number | null) => void;
  },
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const color = COLORS[options.colorIndex % COLORS.length];
  const prefix = process.stdout.isTTY ? `\x1b[${color}m${name.padEnd(14)}\x1b[0m|` : `${name.padEnd(14)}|`;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on("line", (line) =>
      process.stdout.write(`${prefix} ${pretty(line)}\n`),
    );
  }
  child.on("exit", (code) => options.onExit?.(code));
  return {
    name,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

function pretty(line: string): string {
  if (!line.startsWith("{")) return line;
  try {
    const {
      level,
      msg,
      time: _t,
      service: _s,
      name: _n,
      pid: _p,
      hostname: _h,
      ...fields
    } = JSON.parse(line);
    const rest = Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : "";
    return `${String(level ?? "").padEnd(5)} ${msg ?? ""}${rest}`;
  } catch {
    return line;
  }
}

/** Polls an HTTP URL until it answers 200. */
export async function waitForHttp(url: string, timeoutMs: number, isAlive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process exited before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    // Short enough that the runner's "ready in N ms" is a start-up time, not a polling period.
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}
