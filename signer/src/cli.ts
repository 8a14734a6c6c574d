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
  verify FILE [--head SEQ:HASH]  verify an audit log's hash chain (and that it still holds a head
                           a caller recorded); verify-audit is the old name
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

/**
 * Verifies the chain; with `--head SEQ:HASH` (a head a caller stored, e.g. settlement's
 * signer_audit_heads row) also that the log still holds that entry: a log cut back or replaced
 * by an older copy fails here even though its own chain is whole.
 */
function verifyAudit(args: string[]): void {
  const file = args[0];
  if (!file) fail("verify: FILE is required");
  const headArg = args.indexOf("--head") >= 0 ? args[args.indexOf("--head") + 1] : undefined;
  const head = headArg ? /^(\d+):([0-9a-f]{64})$/.exec(headArg) : undefined;
  if (headArg && !head) fail("verify: --head takes SEQ:HASH");
  const hashes = new Map<number, string>();
  const result = verifyAuditLog(readFileSync(file, "utf8"), (entry, hash) => {
    if (head && entry.seq === Number(head[1])) hashes.set(entry.seq, hash);
  });
  if (result.ok && head) {
    const seq = Number(head[1]);
    if (seq > result.entries) {
      process.stdout.write(`truncated: the log has ${result.entries} entries, a caller saw entry ${seq}\n`);
      process.exit(1);
    }
    if (hashes.get(seq) !== head[2]) {
      process.stdout.write(`replaced: entry ${seq} is not the one a caller saw\n`);
      process.exit(1);
    }
  }
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
  case "verify":
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
