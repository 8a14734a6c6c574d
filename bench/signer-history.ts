// How the signer's start grows with its history. Builds a signer whose audit log holds N signed
// intents (Solana token sweeps, each a first signing of its own intent id, over 1,000 deposits
// whose transactions are built once: building them is most of the cost otherwise), decided by the
// real core with a checkpoint every SIGNER_CHECKPOINT_ENTRIES (default) entries as the process writes them, then starts the
// compiled signer on it and prints
//   signer history: N intents; start <ms> ms; rss <MiB> MiB
// start: spawn to the first /readyz 200 (polled every 20 ms); rss: the process's peak resident set
// (VmHWM) at that moment. --no-checkpoints builds the same history without any, as before them;
// --full-tail leaves a whole segment of intents after the newest checkpoint, the most a start
// replays (the next checkpoint is due then).
//   pnpm exec tsx bench/signer-history.ts N [--no-checkpoints | --full-tail] [--runs=3] [--record]
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CHECKPOINTS } from "../signer/src/open-state.js";
import { createTestSigner, request, solanaTokenSweep, TEST_MNEMONIC } from "../signer/test/fixtures.js";
import { machineLine } from "./machine.js";

const intents = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100_000);
const checkpoints = !process.argv.includes("--no-checkpoints");
const fullTail = process.argv.includes("--full-tail");
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice(7) ?? 3);
const record = process.argv.includes("--record");
const EVERY = DEFAULT_CHECKPOINTS.everyEntries;
const root = join(import.meta.dirname, "..");

const DEPOSITS = 1_000;

function buildHistory(dir: string): string {
  const signer = createTestSigner({ dir, ledger: { maxSweepsPerDeposit: intents } });
  const sweeps = Array.from({ length: DEPOSITS }, (_, i) => solanaTokenSweep(signer.keyring, i));
  const started = Date.now();
  for (let i = 0; i < intents; i++) {
    const { intent, tx } = sweeps[i % DEPOSITS]!;
    const outcome = signer.core.decide(request({ ...intent, intentId: `sweep:${i}` }, tx));
    if (!outcome.ok) throw new Error(outcome.refusal.reason);
    const tail = fullTail && intents - i <= EVERY;
    if (checkpoints && !tail && signer.audit.head().seq % EVERY === 0) signer.checkpoint();
    if (i % 100_000 === 99_999)
      process.stderr.write(`built ${i + 1} intents in ${Date.now() - started} ms\n`);
  }
  signer.audit.flush(true);
  signer.close();
  return signer.auditPath;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function startOnce(auditPath: string): Promise<{ ms: number; rssMiB: number }> {
  const [port, healthPort] = [await freePort(), await freePort()];
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, "signer/dist/main.js")], {
    env: {
      PATH: process.env.PATH ?? "",
      SIGNER_ENV: "development",
      SIGNER_HOST: "127.0.0.1",
      SIGNER_PORT: String(port),
      SIGNER_HEALTH_PORT: String(healthPort),
      SIGNER_SEED_MNEMONIC: TEST_MNEMONIC,
      SIGNER_AUDIT_LOG: auditPath,
      SIGNER_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`signer exited with ${child.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = performance.now() - started;
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
    return { ms, rssMiB: Number(hwm) / 1024 };
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

const build = spawnSync("pnpm", ["run", "build", "signer"], { cwd: root, stdio: "ignore" });
if (build.status !== 0) throw new Error("npm run build signer failed");
const dir = mkdtempSync(join(tmpdir(), "signer-history-"));
try {
  const built = Date.now();
  const auditPath = buildHistory(dir);
  const liveMiB = statSync(auditPath).size / 2 ** 20;
  process.stderr.write(
    `history built in ${((Date.now() - built) / 1000).toFixed(0)} s; live segment ${liveMiB.toFixed(1)} MiB\n`,
  );
  const lines: string[] = [];
  for (let run = 0; run < runs; run++) {
    const { ms, rssMiB } = await startOnce(auditPath);
    const how = !checkpoints
      ? " (no checkpoints)"
      : fullTail
        ? " (a full segment after the newest checkpoint)"
        : "";
    const line = `signer history: ${intents} intents; start ${ms.toFixed(0)} ms; rss ${rssMiB.toFixed(0)} MiB${how}`;
    process.stdout.write(`${line}\n`);
    lines.push(line);
  }
  if (record) {
    const when = new Date().toISOString().slice(0, 16).replace("T", " ");
    const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: root,
      encoding: "utf8",
    }).stdout.trim();
    appendFileSync(
      join(import.meta.dirname, "RESULTS-signer-history.md"),
      `\n- ${when} UTC, ${commit}, ${machineLine()}:\n${lines.map((l) => `  - \`${l}\``).join("\n")}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
