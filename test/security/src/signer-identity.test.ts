// A compromised caller against the signer as deployed (its own process, mTLS): a stolen
// certificate is worth only the RPCs of its role, a certificate without a role or a revoked
// one is worth nothing, a development CA does not run in production, and the seed's
// passphrase never has to sit in the process environment.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildSolanaSweep } from "@gateway/chain-tx";
import { issueCertificate, sealMnemonic, writeCrl, writeDevCerts } from "@gateway/signer";
import { createSignerClient, type SignerClient } from "@gateway/signer-client";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type SignerProcess, startSignerProcess } from "./signer-process.js";

const MNEMONIC = "test test test test test test test test test test test junk";
const PASSPHRASE = "a passphrase that lives in a file";
const SIGNER_DIR = path.resolve(import.meta.dirname, "../../../signer");
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BLOCKHASH = Keypair.generate().publicKey.toBase58();
const work = mkdtempSync(path.join(tmpdir(), "gw-sec-identity-"));

function auditLines(signer: SignerProcess): Record<string, unknown>[] {
  return readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Starts main.ts and waits for it to exit: for configurations it must refuse. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: SIGNER_DIR,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function clientWith(signer: SignerProcess, cert: string, key: string): SignerClient {
  return createSignerClient({
    baseUrl: signer.url,
    tls: { ca: readFileSync(signer.certs.ca), cert: readFileSync(cert), key: readFileSync(key) },
    timeoutMs: 10_000,
  });
}

async function sweepInput(signer: SignerProcess, index: number) {
  const book = await signer.client.getServiceAddresses();
  const owner = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index });
  const intent = {
    intentId: `sweep_identity_${process.pid}_${index}`,
    chain: "solana" as const,
    mode: "live" as const,
    asset: USDC,
    amount: 1_000n,
    kind: "sweep" as const,
    depositIndex: index,
  };
  const unsignedTransaction = buildSolanaSweep({
    asset: USDC,
    depositOwner: owner,
    vault: book.solana.live.vault,
    gasWallet: book.solana.live.gas,
    decimals: 6,
    amount: 1_000n,
    recentBlockhash: BLOCKHASH,
  });
  return { intent, unsignedTransaction };
}

describe("signer identity: each certificate is worth its role's RPCs only", () => {
  let signer: SignerProcess;

  beforeAll(async () => {
    signer = await startSignerProcess(
      {
        SIGNER_SEED_MNEMONIC: MNEMONIC,
        SIGNER_CAPS: JSON.stringify({ "solana:*": { perIntent: "1000000000", perDay: "5000000000" } }),
        // Only SIGHUP reloads here, so the test knows when the CRL takes effect.
        SIGNER_TLS_RELOAD_SECONDS: "0",
      },
      { crl: true },
    );
  }, 120_000);
  afterAll(async () => {
    await signer?.stop();
  });

  it("refuses settlement's certificate on the API-only DeriveDepositAddress", async () => {
    const settlement = signer.connect("settlement");
    try {
      await expect(
        settlement.deriveDepositAddress({ chain: "solana", mode: "live", index: 1 }),
      ).rejects.toThrow(
        /permission_denied.*ROLE_NOT_ALLOWED: role settlement may not call DeriveDepositAddress/i,
      );
      // What settlement does need still works.
      expect((await settlement.getServiceAddresses()).solana.live.vault).toBeTruthy();
    } finally {
      settlement.close();
    }
    expect(auditLines(signer).at(-1)).toMatchObject({
      decision: "refused",
      code: "ROLE_NOT_ALLOWED",
      intent: { rpc: "DeriveDepositAddress", role: "settlement" },
    });
  });

  it("refuses the API's certificate on Sign and SignBatch, before any decision", async () => {
    const input = await sweepInput(signer, 31);
    const api = signer.connect("api");
    try {
      await expect(api.sign(input)).rejects.toThrow(/ROLE_NOT_ALLOWED: role api may not call Sign/);
      await expect(api.signBatch([input])).rejects.toThrow(
        /ROLE_NOT_ALLOWED: role api may not call SignBatch/,
      );
    } finally {
      api.close();
    }
    const lines = auditLines(signer);
    expect(lines.slice(-2).map((l) => [l.code, (l.intent as { rpc: string }).rpc])).toEqual([
      ["ROLE_NOT_ALLOWED", "Sign"],
      ["ROLE_NOT_ALLOWED", "SignBatch"],
    ]);
    expect(lines.some((l) => (l.intent as { intentId?: string }).intentId === input.intent.intentId)).toBe(
      false,
    );
    // The intent id was not consumed: settlement gets it signed.
    expect((await signer.client.sign(input)).intentId).toBe(input.intent.intentId);
  });

  it("refuses a certificate of the signer's own CA that names no role, on every RPC", async () => {
    const bare = issueCertificate({
      ca: { cert: signer.certs.ca, key: signer.certs.caKey },
      dir: path.join(work, "bare"),
      name: "bare",
      usage: { kind: "client", role: undefined },
      days: 1,
    });
    const nobody = clientWith(signer, bare.cert, bare.key);
    try {
      await expect(nobody.getServiceAddresses()).rejects.toThrow(/UNKNOWN_ROLE: certificate names no role/);
      await expect(nobody.deriveDepositAddress({ chain: "sui", mode: "live", index: 1 })).rejects.toThrow(
        /UNKNOWN_ROLE/,
      );
      await expect(nobody.signBatch([await sweepInput(signer, 32)])).rejects.toThrow(/UNKNOWN_ROLE/);
    } finally {
      nobody.close();
    }
    expect(auditLines(signer).at(-1)).toMatchObject({ code: "UNKNOWN_ROLE", intent: { rpc: "SignBatch" } });
  });

  it("refuses a revoked certificate after SIGHUP, including on its open connection", async () => {
    const stolen = issueCertificate({
      ca: { cert: signer.certs.ca, key: signer.certs.caKey },
      dir: path.join(work, "stolen"),
      name: "settlement",
      usage: { kind: "client", role: "settlement" },
      days: 1,
    });
    const thief = clientWith(signer, stolen.cert, stolen.key);
    try {
      expect((await thief.getServiceAddresses()).solana.live.gas).toBeTruthy();
      writeCrl({
        ca: { cert: signer.certs.ca, key: signer.certs.caKey },
        revoked: [stolen.cert],
        out: signer.crlFile,
      });
      signer.child.kill("SIGHUP");
      await waitFor(() => signer.output().includes("TLS material reloaded"));
      await expect(thief.getServiceAddresses()).rejects.toThrow();
    } finally {
      thief.close();
    }
    const fresh = clientWith(signer, stolen.cert, stolen.key);
    try {
      await expect(fresh.getServiceAddresses()).rejects.toThrow();
    } finally {
      fresh.close();
    }
    // The real settlement certificate is not revoked.
    expect((await signer.client.getServiceAddresses()).sui.live.vault).toBeTruthy();
  });
});

describe("signer identity: production mode", () => {
  it("refuses to start with a development CA, naming the variable", async () => {
    const certs = writeDevCerts({ dir: path.join(work, "dev-ca") });
    const seed = sealedSeed("dev-ca-seed");
    const result = await runToExit({
      SIGNER_TLS_DIR: path.dirname(certs.ca),
      SIGNER_SEALED_SEED_FILE: seed.file,
      SIGNER_SEED_PASSPHRASE_FILE: seed.passphraseFile,
      SIGNER_AUDIT_LOG: path.join(work, "dev-ca-audit.jsonl"),
      SIGNER_HEALTH_PORT: String(await freePort()),
      SIGNER_PORT: String(await freePort()),
    });
    expect(result.code).toBe(78);
    expect(result.output).toMatch(/SIGNER_TLS_DIR: .*development CA/);
  }, 60_000);

  it("refuses the passphrase in the environment, naming the variable", async () => {
    const certs = writeDevCerts({ dir: path.join(work, "env-pass"), development: false });
    const seed = sealedSeed("env-pass-seed");
    const result = await runToExit({
      SIGNER_TLS_DIR: path.dirname(certs.ca),
      SIGNER_SEALED_SEED_FILE: seed.file,
      SIGNER_SEED_PASSPHRASE: PASSPHRASE,
      SIGNER_AUDIT_LOG: path.join(work, "env-pass-audit.jsonl"),
    });
    expect(result.code).toBe(78);
    expect(result.output).toContain("SIGNER_SEED_PASSPHRASE:");
    expect(result.output).not.toContain(PASSPHRASE);
  }, 60_000);

  it("unseals from a passphrase file; the passphrase is nowhere in /proc/<pid>/environ", async () => {
    const seed = sealedSeed("file-seed");
    const signer = await startSignerProcess(
      {
        SIGNER_ENV: "production",
        SIGNER_SEALED_SEED_FILE: seed.file,
        SIGNER_SEED_PASSPHRASE_FILE: seed.passphraseFile,
      },
      { productionCa: true },
    );
    try {
      const address = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index: 0 });
      expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      const environ = readFileSync(`/proc/${signer.child.pid}/environ`, "utf8");
      expect(environ).toContain("SIGNER_SEED_PASSPHRASE_FILE=");
      expect(environ).not.toContain(PASSPHRASE);
    } finally {
      await signer.stop();
    }
  }, 90_000);

  it("unseals from the stdout of an unseal command", async () => {
    const seed = sealedSeed("command-seed");
    const signer = await startSignerProcess(
      {
        SIGNER_ENV: "production",
        SIGNER_SEALED_SEED_FILE: seed.file,
        // No shell: cat gets the path as its one argument.
        SIGNER_SEED_UNSEAL_COMMAND: JSON.stringify(["cat", seed.passphraseFile]),
      },
      { productionCa: true },
    );
    try {
      expect(signer.output()).not.toContain(PASSPHRASE);
      expect((await signer.client.getServiceAddresses()).sui.live.vault).toMatch(/^0x/);
    } finally {
      await signer.stop();
    }
  }, 90_000);
});

function sealedSeed(name: string): { file: string; passphraseFile: string } {
  const file = path.join(work, `${name}.sealed`);
  const passphraseFile = path.join(work, `${name}.passphrase`);
  writeFileSync(file, sealMnemonic(MNEMONIC, PASSPHRASE, { N: 2 ** 14, r: 8, p: 1 }));
  writeFileSync(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o400 });
  return { file, passphraseFile };
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
