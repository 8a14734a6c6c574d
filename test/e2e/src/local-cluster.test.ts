// The local runner (`npm start`) from the outside: it brings the whole stack up on its own
// PostgreSQL and NATS, every service answers /readyz, and Ctrl-C stops everything it started.
// It runs as an operator would with a mail server of their own (SMTP_URL): the sign-up code
// arrives there and no local mail catcher is started. It runs as the live dry run
// (`--live-dry-run`): the local networks declared live, every doctor check printed green.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHAINS } from "@gateway/contracts";
import { createMailCatcher, type MailCatcher } from "@gateway/mail-catcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCUMENTED_VARIABLES } from "../../../scripts/cluster/operator-env.js";
import { freePort, ROOT } from "./processes.js";

let runner: ChildProcess | undefined;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "gw-runner-test-"));
/** The operator's own mail server, on a port of its own. */
let operatorMail: MailCatcher;
beforeAll(async () => {
  operatorMail = await createMailCatcher();
});
afterAll(async () => {
  // After a failure the runner is still up: Ctrl-C lets it stop what it started (a SIGKILL
  // would orphan its services, PostgreSQL and NATS); SIGKILL only if it does not.
  if (runner && runner.exitCode === null && runner.signalCode === null) {
    const exited = new Promise((resolve) => runner!.once("exit", resolve));
    runner.kill("SIGINT");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    runner.kill("SIGKILL");
  }
  await operatorMail?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** "pid command line" of every process whose command line names `dir`, read from /proc (no
 * procps needed on a bare machine). */
function pidsUnder(dir: string): string[] {
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      return args.includes(dir) ? [`${entry} ${args}`] : [];
    } catch {
      return []; // exited meanwhile
    }
  });
}

function post(port: number, pathname: string, body: unknown) {
  return fetch(`http://127.0.0.1:${port}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("local runner", () => {
  it("starts every service with its own PostgreSQL and NATS, mails the operator's SMTP server, and stops all of it on Ctrl-C", async () => {
    const apiPort = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    // Only what this test sets: a variable of the test's own environment would win too.
    for (const name of DOCUMENTED_VARIABLES) delete env[name];
    let output = "";
    runner = spawn(process.execPath, ["--import", "tsx", "scripts/local-cluster.ts", "--live-dry-run"], {
      cwd: ROOT,
      env: {
        ...env,
        GATEWAY_DATA_DIR: dataDir,
        PORT: String(apiPort),
        SMTP_URL: operatorMail.smtpUrl,
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
    const watchers = CHAINS.map((chain) => `watcher-${chain}`);
    for (const name of ["signer", "settlement", "notifier", "api", "price-server", ...watchers])
      expect(output).toContain(`${name} ready`);
    expect(output).not.toContain("mail-catcher ready");
    expect(output).toContain("mail-catcher not started: SMTP_URL is set");
    expect(output).toContain(`PostgreSQL started on port`);
    // The networks were declared by what they reported, and every preflight and doctor check passed.
    expect(output).toMatch(
      /Solana local network declared: SOLANA_NETWORK=localnet SOLANA_GENESIS_HASH=\w{32,44}/,
    );
    expect(output).toMatch(/Sui local network declared: SUI_NETWORK=localnet SUI_CHAIN_ID=\w{32,44}/);
    expect(output).toMatch(/✓ ok {4}solana {13}SOLANA_RPC_URL is the declared local network/);
    expect(output).toMatch(/✓ ok {4}sui {16}SUI_GRPC_URL is the declared local network/);
    expect(output).toMatch(/all \d+ checks passed/);
    expect(output).not.toContain("✗ WRONG");
    expect(output).toContain(`data in ${dataDir}`);
    const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
    expect(ready.status).toBe(200);
    // Live mode reads the local price server: SOL and SUI have live prices.
    const metrics = await (await fetch(`http://127.0.0.1:${apiPort}/metrics`)).text();
    expect(metrics).toMatch(/gateway_price_available\{coin="SOL",service="api"\} 1/);
    expect(metrics).toMatch(/gateway_price_available\{coin="SUI",service="api"\} 1/);
    expect(pidsUnder(dataDir).length).toBeGreaterThan(0);
    // The API bundled the dashboard's TypeScript at start-up and serves what the page links.
    const shell = await (await fetch(`http://127.0.0.1:${apiPort}/dashboard`)).text();
    const script = /<script type="module" src="([^"]+)"/.exec(shell)?.[1];
    expect(script).toMatch(/^\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]{12}$/);
    const bundle = await fetch(`http://127.0.0.1:${apiPort}${script}`);
    expect(bundle.status).toBe(200);
    expect(await bundle.text()).toContain("payment.confirming");

    // A sign-up's code reaches the operator's server, and it is the code the API asks for.
    const email = `operator-${apiPort}@example.test`;
    const signup = await post(apiPort, "/auth/signup", {
      email,
      password: "correct horse battery",
      business_name: "Operator Shop",
    });
    expect(signup.status).toBe(201);
    const mail = await operatorMail.waitForMail({
      to: email,
      subject: "verification code",
      timeoutMs: 20_000,
    });
    const signupCode = /\b(\d{6})\b/.exec(mail.subject)?.[1];
    expect(signupCode).toBeDefined();
    expect((await post(apiPort, "/auth/verify-email", { email, code: signupCode })).status).toBe(200);

    runner.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => runner!.once("exit", resolve));
    expect(code).toBe(0);
    expect(output).toContain("stopped everything it started");
    await expect(fetch(`http://127.0.0.1:${apiPort}/healthz`)).rejects.toThrow();
    // PostgreSQL and NATS ran with their data in our folder; nothing of them is left running.
    expect(pidsUnder(dataDir)).toEqual([]);
  }, 180_000);
});
