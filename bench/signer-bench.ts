// Signer benchmark: derivations per second in process; signatures per second over gRPC
// with mTLS (one at a time, concurrent singles, and batches) against a signer running
// as its own process; and the in-process node:crypto ed25519 rate in the same run.
//   pnpm exec tsx bench/signer-bench.ts [--write]   (--write updates bench/RESULTS-signer.md)
//
// The machine is shared, so next to wall-clock rates the report gives rates per CPU
// second (this process's CPU for in-process work, the signer process's CPU read from
// /proc for gRPC work), which other load disturbs far less; and every gRPC phase is
// compared with an in-process sample taken right before it. Two in-process rates: bare
// node:crypto ed25519 (what the signatures alone cost), and the decision core itself (every
// check, the ledger and the audit line, no gRPC), so the report separates the cost of the
// decisions from the cost of the transport.
import { execFileSync, spawn } from "node:child_process";
import { createPrivateKey, randomBytes, sign } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { freePort } from "@gateway/local-infra";
import pino from "pino";
import { buildSolanaSweep, SOL_ASSET } from "../packages/chain-tx/src/index.js";
import { createSignerClient, type SignInput, toProtoIntent } from "../packages/signer-client/src/index.js";
import { SignRequestSchema } from "../packages/signer-proto/src/index.js";
import {
  createApprovalVerifier,
  createKeyring,
  createSignerCore,
  mnemonicToSeed,
  openSignerState,
  writeDevCerts,
} from "../signer/src/index.js";
import {
  BLOCKHASH,
  DEFAULT_CAPS,
  TEST_GAS_BUDGETS,
  TEST_LIMITS,
  TEST_MNEMONIC,
  USDC_MINT,
} from "../signer/test/fixtures.js";
import { writeKeepingNotes } from "./notes-marker.js";

const root = new URL("..", import.meta.url).pathname;
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

interface Rate {
  wall: number;
  cpu: number;
}

const perSecond = (count: number, ms: number) => Math.round((count / ms) * 1000);

function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // After "pid (comm) ": state is field 0, utime field 11, stime field 12.
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

function measureSync(count: number, fn: () => void): Rate {
  const wall0 = performance.now();
  const cpu0 = ownCpuMs();
  fn();
  return { wall: perSecond(count, performance.now() - wall0), cpu: perSecond(count, ownCpuMs() - cpu0) };
}

async function measureRemote(count: number, pid: number, fn: () => Promise<void>): Promise<Rate> {
  const wall0 = performance.now();
  const cpu0 = processCpuMs(pid);
  await fn();
  return {
    wall: perSecond(count, performance.now() - wall0),
    cpu: perSecond(count, processCpuMs(pid) - cpu0),
  };
}

const loadAtStart = loadavg()[0]!.toFixed(1);

// --- derivations: a fresh keyring each time, so every key is derived, none cached ---
const seed = mnemonicToSeed(TEST_MNEMONIC);
const DERIVATIONS = 10_000;
const derivation: Record<"solana" | "sui", Rate> = { solana: { wall: 0, cpu: 0 }, sui: { wall: 0, cpu: 0 } };
for (const chain of ["solana", "sui"] as const) {
  const fresh = createKeyring({ seed });
  fresh.key(chain, "deposit", "live", 0); // derive the branch node outside the timing
  derivation[chain] = measureSync(DERIVATIONS, () => {
    for (let i = 1; i <= DERIVATIONS; i++) fresh.key(chain, "deposit", "live", i);
  });
}

// --- in-process node:crypto ed25519 over a message of a sweep's size ---
const keyring = createKeyring({ seed });
const gas = keyring.key("solana", "gas", "live").address;
const vault = keyring.key("solana", "vault", "live").address;
const sampleMessage = buildSolanaSweep({
  asset: USDC_MINT,
  depositOwner: keyring.key("solana", "deposit", "live", 1).address,
  vault,
  gasWallet: gas,
  amount: 1n,
  decimals: 6,
  recentBlockhash: BLOCKHASH,
  closeDepositAccount: true,
});
const rawKey = createPrivateKey({
  key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), randomBytes(32)]),
  format: "der",
  type: "pkcs8",
});
function inProcess(): Rate {
  const N = 5_000;
  return measureSync(N, () => {
    for (let i = 0; i < N; i++) sign(null, sampleMessage, rawKey);
  });
}
inProcess(); // warm-up

// --- the signer as its own process, mTLS on a random port ---
const dir = mkdtempSync(join(tmpdir(), "signer-bench-"));
const certs = writeDevCerts({ dir: join(dir, "tls") });
const [port, healthPort] = [await freePort(), await freePort()];
const child = spawn(process.execPath, ["--import", "tsx", join(root, "signer/src/main.ts")], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? "",
    SIGNER_ENV: "development",
    SIGNER_SEED_MNEMONIC: TEST_MNEMONIC,
    SIGNER_HOST: "127.0.0.1",
    SIGNER_PORT: String(port),
    SIGNER_HEALTH_PORT: String(healthPort),
    SIGNER_TLS_DIR: join(dir, "tls"),
    SIGNER_AUDIT_LOG: join(dir, "audit.jsonl"),
    SIGNER_LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "inherit", "inherit"],
});
const signerPid = child.pid!;
for (let i = 0; ; i++) {
  const ok = await fetch(`http://127.0.0.1:${healthPort}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) break;
  if (i > 300) throw new Error("signer did not start");
  await new Promise((r) => setTimeout(r, 100));
}
// Each RPC through the certificate of the role that makes it: settlement signs, the API derives.
const clientAs = (role: "api" | "settlement") =>
  createSignerClient({
    baseUrl: `https://localhost:${port}`,
    tls: {
      ca: readFileSync(certs.ca),
      cert: readFileSync(certs.clients[role].cert),
      key: readFileSync(certs.clients[role].key),
    },
    timeoutMs: 120_000,
  });
const client = clientAs("settlement");
const apiClient = clientAs("api");

let nextIndex = 1000;
function sweeps(count: number, asset: string): SignInput[] {
  const inputs: SignInput[] = [];
  for (let i = 0; i < count; i++) {
    const index = nextIndex++;
    const amount = 1_000n + BigInt(i);
    inputs.push({
      intent: {
        intentId: `bench_${process.pid}_${index}`,
        chain: "solana",
        mode: "live",
        asset,
        amount,
        kind: "sweep",
        depositIndex: index,
      },
      unsignedTransaction: buildSolanaSweep({
        asset,
        depositOwner: keyring.key("solana", "deposit", "live", index).address,
        vault,
        gasWallet: gas,
        amount,
        decimals: 6,
        recentBlockhash: BLOCKHASH,
        closeDepositAccount: asset !== SOL_ASSET,
      }),
    });
  }
  return inputs;
}

interface Phase {
  grpc: Rate;
  /** The in-process rate sampled right before the phase. */
  local: Rate;
}

// --- the decision core in process: the same checks, ledger and audit line, no transport ---
const coreKeyring = createKeyring({ seed });
const core = (() => {
  const state = openSignerState(join(dir, "core-audit.jsonl"), {
    caps: DEFAULT_CAPS,
    gasBudgets: TEST_GAS_BUDGETS,
    maxSweepsPerDeposit: 8,
  });
  return createSignerCore({
    keyring: coreKeyring,
    approvals: createApprovalVerifier([]),
    ledger: state.ledger,
    audit: state.audit,
    limits: TEST_LIMITS,
    log: pino({ level: "silent" }),
  });
})();

/** Signatures per second of the core deciding `inputs` in batches of `batch`, one sync per batch. */
async function decisionCore(inputs: SignInput[], batch: number): Promise<Rate> {
  const requests = inputs.map((input) =>
    create(SignRequestSchema, {
      intent: toProtoIntent(input.intent),
      unsignedTransaction: input.unsignedTransaction,
    }),
  );
  // Keys derived beforehand, as for the gRPC phase it is compared with.
  for (const input of inputs) {
    if (input.intent.kind === "sweep")
      coreKeyring.key("solana", "deposit", "live", input.intent.depositIndex);
  }
  const wall0 = performance.now();
  const cpu0 = ownCpuMs();
  for (let i = 0; i < requests.length; i += batch) {
    for (const request of requests.slice(i, i + batch)) {
      if (!core.decide(request).ok) throw new Error("a benchmark intent was refused in process");
    }
    await core.sync();
  }
  const count = requests.length * 2;
  return { wall: perSecond(count, performance.now() - wall0), cpu: perSecond(count, ownCpuMs() - cpu0) };
}

async function phase(count: number, run: () => Promise<void>): Promise<Phase> {
  const local = inProcess();
  // Each sweep carries two signatures (gas wallet and deposit).
  return { grpc: await measureRemote(count * 2, signerPid, run), local };
}

async function measure(asset: string) {
  const SEQ = 300;
  const CONC = 2_000;
  const BATCHED = 10_000;
  const BATCH = 250;
  await client.signBatch(sweeps(300, asset)); // warm-up: JIT, TLS session
  const seq = sweeps(SEQ, asset);
  const singleSequential = await phase(SEQ, async () => {
    for (const input of seq) await client.sign(input);
  });
  const conc = sweeps(CONC, asset);
  const singleConcurrent = await phase(CONC, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < conc.length) await client.sign(conc[next++]!);
      }),
    );
  });
  const runBatches = (inputs: SignInput[]) => async () => {
    const batches: SignInput[][] = [];
    for (let i = 0; i < inputs.length; i += BATCH) batches.push(inputs.slice(i, i + BATCH));
    // Two batches in flight, so the signer does not wait on the network between them.
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < batches.length) {
          const outcomes = await client.signBatch(batches[next++]!);
          if (outcomes.some((o) => !o.ok)) throw new Error("a benchmark intent was refused");
        }
      }),
    );
  };
  const batched = await phase(BATCHED, runBatches(sweeps(BATCHED, asset)));
  // In production a deposit's key was derived when its address was handed out, so a sweep
  // usually finds it cached: derive the addresses over gRPC first (measured too), then sweep.
  const warm = sweeps(BATCHED, asset);
  const indices = warm.map((input) => (input.intent.kind === "sweep" ? input.intent.depositIndex : 0));
  const derivedOverGrpc = await measureRemote(indices.length, signerPid, async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < indices.length) {
          await apiClient.deriveDepositAddress({ chain: "solana", mode: "live", index: indices[next++]! });
        }
      }),
    );
  });
  const batchedWarm = await phase(BATCHED, runBatches(warm));
  const coreWarm = await decisionCore(warm, BATCH);
  return { singleSequential, singleConcurrent, batched, batchedWarm, derivedOverGrpc, coreWarm };
}

const token = await measure(USDC_MINT);
const native = await measure(SOL_ASSET);
client.close();
child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));

const cpu = execFileSync("lscpu", { encoding: "utf8" }).match(/Model name:\s+(.+)/)?.[1] ?? cpus()[0]?.model;
const pct = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;
const row = (name: string, p: Phase) =>
  `| ${name} | ${p.grpc.wall} | ${p.local.wall} | ${pct(p.grpc.wall, p.local.wall)} | ${p.grpc.cpu} | ${p.local.cpu} | ${pct(p.grpc.cpu, p.local.cpu)} |`;
const report = `# Signer benchmark

Run: \`pnpm exec tsx bench/signer-bench.ts --write\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.
Machine: ${cpus().length} cores, ${cpu}, Node ${process.version}, OpenSSL ${process.versions.openssl}.
Load average (1 min): ${loadAtStart} at start, ${loadavg()[0]!.toFixed(1)} at end. The machine is shared with other
work, so wall-clock rates swing between runs; rates per CPU second (this process's CPU for
in-process work, the signer process's CPU from \`/proc\` for gRPC work) are steadier.

The signer ran as its own process (\`signer/src/main.ts\`) with mTLS (development
certificates), the benchmark as its client. Every signed intent went through all checks
(decode, accounts, amounts, replay), a derivation of the deposit key (not cached: each
sweep is for a new deposit), the audit log and the replay ledger, with one fdatasync per
request or per batch before the answer.

## Derivation (in process, fresh keyring, ${DERIVATIONS.toLocaleString("en")} keys each; goal ≥ 4,000/s)

| key | derivations/s (wall) | per CPU second |
| - | -: | -: |
| Solana \`m/44'/501'/0'/i'\` (SLIP-0010, public key, base58 address) | ${derivation.solana.wall} | ${derivation.solana.cpu} |
| Sui \`m/44'/784'/0'/0'/i'\` (SLIP-0010, public key, BLAKE2b address) | ${derivation.sui.wall} | ${derivation.sui.cpu} |

Over gRPC (\`DeriveDepositAddress\`, unary, 64 in flight, new indices): ${token.derivedOverGrpc.wall}/s wall,
${token.derivedOverGrpc.cpu} per signer CPU second.

## Signing: signatures per second (a sweep carries 2 signatures; goal: batched ≥ 50% of in-process)

"in-process" is \`node:crypto\` ed25519 over a ${sampleMessage.length}-byte message, sampled right before
each gRPC phase.

| SPL token sweep over gRPC + mTLS | gRPC (wall) | in-process (wall) | ratio | gRPC per signer CPU s | in-process per CPU s | ratio |
| - | -: | -: | -: | -: | -: | -: |
${row("single, one at a time", token.singleSequential)}
${row("single, 64 in flight", token.singleConcurrent)}
${row("batched, 250 per batch, 2 in flight", token.batched)}
${row("batched, deposit keys already derived", token.batchedWarm)}

| SOL sweep over gRPC + mTLS | gRPC (wall) | in-process (wall) | ratio | gRPC per signer CPU s | in-process per CPU s | ratio |
| - | -: | -: | -: | -: | -: | -: |
${row("single, one at a time", native.singleSequential)}
${row("single, 64 in flight", native.singleConcurrent)}
${row("batched, 250 per batch, 2 in flight", native.batched)}
${row("batched, deposit keys already derived", native.batchedWarm)}

"Deposit keys already derived": the sweeps' deposit addresses were requested first, as
they are in production when a payment is created, so the signer finds the keys cached.

## The transport's share: batched gRPC against the decision core in process

The same sweeps (keys derived beforehand) decided by the signer's core in this process: every
check, the ledger, the audit line and one fdatasync per 250, but no gRPC, TLS or protobuf.

| sweep | gRPC per signer CPU s | decision core in process per CPU s | ratio | gRPC (wall) | core (wall) |
| - | -: | -: | -: | -: | -: |
| SPL token | ${token.batchedWarm.grpc.cpu} | ${token.coreWarm.cpu} | ${pct(token.batchedWarm.grpc.cpu, token.coreWarm.cpu)} | ${token.batchedWarm.grpc.wall} | ${token.coreWarm.wall} |
| SOL | ${native.batchedWarm.grpc.cpu} | ${native.coreWarm.cpu} | ${pct(native.batchedWarm.grpc.cpu, native.coreWarm.cpu)} | ${native.batchedWarm.grpc.wall} | ${native.coreWarm.wall} |

Single calls one at a time are bound by the fdatasync each answer waits for; concurrent
calls share one fdatasync among all requests waiting at that moment, and a batch has one.
`;
process.stdout.write(report);
if (process.argv.includes("--write")) writeKeepingNotes(join(root, "bench/RESULTS-signer.md"), report);
