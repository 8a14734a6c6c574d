// The local runner (`npm start`) from the outside: it brings the whole stack up on its own
// PostgreSQL and NATS, every service answers /readyz, and Ctrl-C stops everything it started.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, ROOT } from "./processes.js";

let runner: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "gw-runner-test-"));
afterAll(() => {
  runner?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

function pidsUnder(dir: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes(dir));
}

describe("local runner", () => {
  it("starts every service with its own PostgreSQL and NATS, and stops all of it on Ctrl-C", async () => {
    const apiPort = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    delete env.DATABASE_URL;
    delete env.NATS_URL;
    let output = "";
    runner = spawn(process.execPath, ["--import", "tsx", "scripts/local-cluster.ts"], {
      cwd: ROOT,
      env: {
        ...env,
        GATEWAY_DATA_DIR: dataDir,
        PORT: String(apiPort),
        GATEWAY_PORT_OFFSET: String(10000 + (apiPort % 5000)),
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    runner.stdout?.on("data", (c) => {
      output += c;
    });
    runner.stderr?.on("data", (c) => {
      output += c;
    });
    const deadline = Date.now() + 120_000;
    while (!output.includes("Press Ctrl-C to stop.")) {
      if (runner.exitCode !== null || Date.now() > deadline)
        throw new Error(`runner did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const name of ["signer", "settlement", "notifier", "api", "mail-catcher", "price-server"])
      expect(output).toContain(`${name} ready`);
    expect(output).toContain(`PostgreSQL started on port`);
    expect(output).toContain(`data in ${dataDir}`);
    const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
    expect(ready.status).toBe(200);
    // Live mode reads the local price server: SOL and SUI have live prices.
    const metrics = await (await fetch(`http://127.0.0.1:${apiPort}/metrics`)).text();
    expect(metrics).toMatch(/gateway_price_available\{coin="SOL",service="api"\} 1/);
    expect(metrics).toMatch(/gateway_price_available\{coin="SUI",service="api"\} 1/);
    expect(pidsUnder(dataDir).length).toBeGreaterThan(0);

    runner.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => runner!.once("exit", resolve));
    expect(code).toBe(0);
    expect(output).toContain("stopped everything it started");
    await expect(fetch(`http://127.0.0.1:${apiPort}/healthz`)).rejects.toThrow();
    // PostgreSQL and NATS ran with their data in our folder; nothing of them is left running.
    expect(pidsUnder(dataDir)).toEqual([]);
  }, 180_000);
});
