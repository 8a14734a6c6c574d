// Operator commands:
//   seal --out FILE           reads a mnemonic from stdin, passphrase from SIGNER_SEED_PASSPHRASE
//   verify-audit FILE         checks the hash chain of an audit log
//   dev-certs DIR [HOST...]   writes a development CA, server and client certificates
//   addresses                 prints the vault and gas addresses (needs the seed, like the server)
import { readFileSync, writeFileSync } from "node:fs";
import { parseSignerConfig } from "./config.js";
import { writeDevCerts } from "./dev-certs.js";
import { createKeyring } from "./keys/keyring.js";
import { sealMnemonic } from "./keys/sealed-seed.js";
import { loadSeed } from "./seed.js";
import { verifyAuditLog } from "./state/audit-log.js";

const USAGE = `usage: signer <command>
  seal --out FILE          seal the mnemonic read from stdin; passphrase from SIGNER_SEED_PASSPHRASE
  verify-audit FILE        verify an audit log's hash chain
  dev-certs DIR [HOST...]  write a development CA, server and client certificates into DIR
  addresses                print the vault and gas addresses for every chain and mode`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function seal(args: string[]): void {
  const outIndex = args.indexOf("--out");
  const out = outIndex >= 0 ? args[outIndex + 1] : undefined;
  if (!out) fail("seal: --out FILE is required");
  const passphrase = process.env.SIGNER_SEED_PASSPHRASE;
  if (!passphrase) fail("seal: set SIGNER_SEED_PASSPHRASE");
  const mnemonic = readFileSync(0, "utf8");
  writeFileSync(out, sealMnemonic(mnemonic, passphrase), { mode: 0o600, flag: "wx" });
  process.stdout.write(`sealed seed written to ${out}\n`);
}

function verifyAudit(args: string[]): void {
  const file = args[0];
  if (!file) fail("verify-audit: FILE is required");
  const result = verifyAuditLog(readFileSync(file, "utf8"));
  if (result.ok) {
    process.stdout.write(`ok: ${result.entries} entries, last hash ${result.lastHash}\n`);
  } else {
    process.stdout.write(
      `broken at line ${result.line}: ${result.problem} (${result.entries} entries verified)\n`,
    );
    process.exit(1);
  }
}

function devCerts(args: string[]): void {
  const [dir, ...hostnames] = args;
  if (!dir) fail("dev-certs: DIR is required");
  const files = writeDevCerts({ dir, hostnames });
  process.stdout.write(`${JSON.stringify(files, null, 2)}\n`);
}

function addresses(): void {
  const config = parseSignerConfig(process.env);
  const keyring = createKeyring({ seed: loadSeed(config.seed) });
  for (const chain of ["solana", "sui"] as const) {
    for (const mode of ["live", "test"] as const) {
      const vault = keyring.key(chain, "vault", mode).address;
      const gas = keyring.key(chain, "gas", mode).address;
      process.stdout.write(`${chain} ${mode} vault=${vault} gas=${gas}\n`);
    }
  }
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case "seal":
    seal(args);
    break;
  case "verify-audit":
    verifyAudit(args);
    break;
  case "dev-certs":
    devCerts(args);
    break;
  case "addresses":
    addresses();
    break;
  default:
    fail(USAGE);
}
