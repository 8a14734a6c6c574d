// What the signer keeps in memory per intent it signed, and how long it takes to start from a
// long audit log. Every signed intent stays in the signer's ledger for good (exactly once), so
// this is the slope of its memory under load; the 30-minute soak saw it as the signer's climb.
//   node --expose-gc --import tsx bench/signer-memory.ts [intents=20000] [--big] [--record]  (--record writes bench/RESULTS-signer-memory.md)
// --big also writes an audit log past 512 MiB (the longest string V8 makes, which a signer that
// read its log whole could not start from) and starts a signer from it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chain, Mode } from "../packages/signer-proto/src/index.js";
import { createTestSigner, request, solanaTokenSweep, suiTokenSweep } from "../signer/test/fixtures.js";
import { recordResults } from "./harness.js";
import { machineLine } from "./machine.js";

const intents = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const used = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
};

type Signer = ReturnType<typeof createTestSigner>;
type Build = (signer: Signer, index: number) => Promise<ReturnType<typeof request>>;
const solana: Build = async (signer, index) => {
  const sweep = solanaTokenSweep(signer.keyring, index);
  return request(sweep.intent, sweep.tx);
};
// Two deposit coins and a gas coin: three object versions locked a sweep.
const sui: Build = async (signer, index) => {
  const sweep = await suiTokenSweep(signer.keyring, index);
  return request(sweep.intent, sweep.tx, sweep.objects);
};

/** Signs `count` token sweeps of new deposits; returns the bytes per intent the signer kept. */
async function signSweeps(signer: Signer, build: Build, from: number, count: number) {
  // The requests are built first and held to the end, so that only what the signer keeps counts.
  const requests = [];
  for (let i = 0; i < count; i++) requests.push(await build(signer, from + i));
  const before = used();
  for (const r of requests) {
    const outcome = signer.core.decide(r);
    if (!outcome.ok) throw new Error(outcome.refusal.reason);
  }
  signer.audit.flush();
  const after = used();
  const per = (n: number) => (n / requests.length).toFixed(0);
  return `${per(after.heap - before.heap)} + ${per(after.external - before.external)}`;
}

/**
 * Hands out `count` test-mode deposit addresses from index `from` on (each test payment's
 * generate-wallet asks for one); returns the bytes per address the signer kept.
 */
function handOutAddresses(signer: Signer, from: number, count: number) {
  const before = used();
  for (let i = 0; i < count; i++) signer.core.deriveDepositAddress(Chain.SOLANA, Mode.TEST, from + i);
  signer.audit.flush();
  const after = used();
  const per = (n: number) => (n / count).toFixed(1);
  return `${per(after.heap - before.heap)} + ${per(after.external - before.external)}`;
}

const dir = mkdtempSync(join(tmpdir(), "signer-memory-"));
const lines: string[] = [
  `## Signer memory per signed intent (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Machine: ${machineLine()}.`,
  "",
  "| measure | value |",
  "| - | - |",
];
try {
  const signer = createTestSigner({ dir, ledger: { maxSweepsPerDeposit: 8 } });
  // The first batch fills the caches (10,000 derived keys, 10,000 addresses); the next two show
  // what every further intent adds (a Map's table grows in steps, so they differ).
  const rounds = async (build: Build, base: number, count: number) => {
    const out = [];
    for (const round of [1, 2, 3]) out.push(await signSweeps(signer, build, base + round * count, count));
    return out.join("; ");
  };
  lines.push(
    `| bytes kept per Solana token sweep signed (heap + external), in three rounds of ${intents} | ${await rounds(solana, 0, intents)} |`,
  );
  // Sui after Solana: the caches are full by then. Fewer, as each takes a transaction build.
  const suiCount = Math.ceil(intents / 4);
  lines.push(
    `| bytes kept per Sui token sweep signed (heap + external), in three rounds of ${suiCount} | ${await rounds(sui, 10_000_000, suiCount)} |`,
  );
  // The caches are full by now too: what stays is the record that each index was handed out.
  const addresses = [1, 2, 3].map((round) => handOutAddresses(signer, (round - 1) * intents, intents));
  lines.push(
    `| bytes kept per test-mode deposit address handed out (heap + external), in three rounds of ${intents} | ${addresses.join("; ")} |`,
  );
  signer.close();
  const size = statSync(join(dir, "audit.jsonl")).size;
  let started = performance.now();
  createTestSigner({ dir }).close();
  lines.push(
    `| start from a log of ${6 * intents + 3 * suiCount + 1} entries (${(size / 2 ** 20).toFixed(0)} MiB): verify and replay | ${(performance.now() - started).toFixed(0)} ms |`,
  );

  if (process.argv.includes("--big")) {
    // Entries of about 1 kB, as signings' are, until the log passes 512 MiB.
    const big = createTestSigner({ dir: mkdtempSync(join(tmpdir(), "signer-big-")) });
    const padding = "x".repeat(800);
    for (let n = 0; statSync(big.auditPath).size < 600 * 2 ** 20; n++) {
      for (let i = 0; i < 10_000; i++)
        big.audit.append({ decision: "refused", intent: { intentId: `pad${n}_${i}` }, padding });
      big.audit.flush();
    }
    big.close();
    const bigSize = statSync(big.auditPath).size;
    started = performance.now();
    createTestSigner({ dir: big.dir }).close();
    lines.push(
      `| start from a log of ${(bigSize / 2 ** 20).toFixed(0)} MiB, past the 512 MiB a whole read could take | ${((performance.now() - started) / 1000).toFixed(1)} s |`,
    );
    rmSync(big.dir, { recursive: true, force: true });
  }
  lines.push("");
  process.stdout.write(`${lines.join("\n")}\n`);
  if (process.argv.includes("--record")) recordResults("RESULTS-signer-memory.md", lines);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
