// Operator commands (USAGE below). `create-ca`, `issue-cert` and `gen-crl` are the only code
// that reads the CA key: run them on the issuing host, never in a service's container.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import bs58 from "bs58";
import { isRole, ROLES } from "./access.js";
import { createCa, issueCertificate, writeCrl } from "./certificates.js";
import { SIGNER_CHAINS } from "./chains/index.js";
import { parseSignerConfig } from "./config.js";
import { writeDevCerts } from "./dev-certs.js";
import { createKeyring } from "./keys/keyring.js";
import { sealMnemonic } from "./sealed-seed.js";
import { loadSeed } from "./seed.js";
import { verifyAuditChain } from "./storage/audit-segments.js";

const USAGE = `usage: signer <command>
  seal --out FILE [--passphrase-file F]
                           seal the mnemonic read from stdin; passphrase from the file or SIGNER_SEED_PASSPHRASE
  verify FILE [--head SEQ:HASH]  verify an audit log's hash chain (and that it still holds a head
                           a caller recorded); verify-audit is the old name
  dev-certs DIR [HOST...]  write a development CA, a server and one client certificate per role into DIR
  create-ca DIR            write a production CA (ca.pem, ca-key.pem) into DIR
  issue-cert ROLE OUT --ca-dir DIR [--days N] [--host HOST]...
                           issue OUT/tls.crt, OUT/tls.key and OUT/ca.crt; ROLE is signer (server) or ${ROLES.join(", ")}
  gen-crl --ca-dir DIR --out FILE [CERT...]
                           write a CRL revoking CERT... and every certificate in DIR/revoked/
  addresses                print the vault and gas addresses for every chain and mode
  record FILE              print, as JSON lines, what the audit log FILE says the signer did that a
                           database restored from a backup must learn again: every first signing
                           (its intent, transaction and chain transaction id) and every deposit
                           index handed out`;

/** Values of a repeatable `--name value` option, and the arguments left. */
function options(args: string[]): { get(name: string): string[]; rest: string[] } {
  const found = new Map<string, string[]>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("--")) {
      const value = args[++i];
      if (value === undefined) fail(`${arg} needs a value`);
      found.set(arg, [...(found.get(arg) ?? []), value]);
    } else {
      rest.push(arg);
    }
  }
  return { get: (name) => found.get(name) ?? [], rest };
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function seal(args: string[]): void {
  const opts = options(args);
  const out = opts.get("--out")[0];
  if (!out) fail("seal: --out FILE is required");
  const file = opts.get("--passphrase-file")[0];
  const passphrase = file
    ? readFileSync(file, "utf8").replace(/\r?\n$/, "")
    : process.env.SIGNER_SEED_PASSPHRASE;
  if (!passphrase) fail("seal: pass --passphrase-file FILE or set SIGNER_SEED_PASSPHRASE");
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
  // Every archived segment beside the log, then the log itself, and each checkpoint's state file.
  const result = verifyAuditChain(file, (entry, hash) => {
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
    process.stdout.write(
      `ok: ${result.entries} entries, last hash ${result.lastHash}, ${result.checkpoints} checkpoint state files checked\n`,
    );
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

function caFromDir(dir: string | undefined, command: string) {
  if (!dir) fail(`${command}: --ca-dir DIR (holding ca.pem and ca-key.pem) is required`);
  return { cert: join(dir, "ca.pem"), key: join(dir, "ca-key.pem") };
}

function createCaCommand(args: string[]): void {
  const [dir] = args;
  if (!dir) fail("create-ca: DIR is required");
  if (existsSync(join(dir, "ca-key.pem"))) fail(`create-ca: ${dir} already holds a CA key`);
  const ca = createCa({ dir, development: false });
  process.stdout.write(`${JSON.stringify(ca, null, 2)}\n`);
}

function issueCert(args: string[]): void {
  const opts = options(args);
  const [role, out] = opts.rest;
  if (!role || !out) fail("issue-cert: ROLE and OUT are required");
  if (role !== "signer" && !isRole(role))
    fail(`issue-cert: ROLE must be signer or one of ${ROLES.join(", ")}`);
  const ca = caFromDir(opts.get("--ca-dir")[0], "issue-cert");
  const days = Number(opts.get("--days")[0] ?? 30);
  if (!Number.isInteger(days) || days < 1 || days > 825) fail("issue-cert: --days must be 1 to 825");
  issueCertificate({
    ca,
    dir: out,
    name: { cert: "tls.crt", key: "tls.key" },
    usage: role === "signer" ? { kind: "server", hostnames: opts.get("--host") } : { kind: "client", role },
    days,
  });
  // The names of a Kubernetes TLS Secret: tls.crt, tls.key and ca.crt (the CA certificate only).
  writeFileSync(join(out, "ca.crt"), readFileSync(ca.cert));
  process.stdout.write(`${role} certificate for ${days} days in ${out} (tls.crt, tls.key, ca.crt)\n`);
}

function genCrl(args: string[]): void {
  const opts = options(args);
  const dirArg = opts.get("--ca-dir")[0];
  const ca = caFromDir(dirArg, "gen-crl");
  const out = opts.get("--out")[0];
  if (!out) fail("gen-crl: --out FILE is required");
  const revokedDir = join(dirArg ?? "", "revoked");
  const kept = existsSync(revokedDir)
    ? readdirSync(revokedDir)
        .filter((f) => f.endsWith(".pem") || f.endsWith(".crt"))
        .map((f) => join(revokedDir, f))
    : [];
  const revoked = [...kept, ...opts.rest];
  writeCrl({ ca, revoked, out, days: Number(opts.get("--days")[0] ?? 30) });
  process.stdout.write(`CRL revoking ${revoked.length} certificate(s) written to ${out}\n`);
}

function addresses(): void {
  const config = parseSignerConfig(process.env);
  const keyring = createKeyring({ seed: loadSeed(config.seed) });
  for (const { name: chain } of SIGNER_CHAINS) {
    for (const mode of ["live", "test"] as const) {
      const vault = keyring.key(chain, "vault", mode).address;
      const gas = keyring.key(chain, "gas", mode).address;
      process.stdout.write(`${chain} ${mode} vault=${vault} gas=${gas}\n`);
    }
  }
}

/**
 * What the signer did, for the runbook after a restore of PostgreSQL (docs/operations.md): the
 * log is verified first, so a record taken from a damaged log is never acted on.
 */
function record(args: string[]): void {
  const file = args[0];
  if (!file) fail("record: FILE is required");
  const lines: string[] = [];
  const result = verifyAuditChain(file, (entry) => {
    if (entry.decision === "address") {
      const { seq, at, chain, mode, index, address } = entry;
      lines.push(JSON.stringify({ type: "address", seq, at, chain, mode, index, address }));
    } else if (entry.decision === "signed" && entry.ledger?.first) {
      const { seq, at, intent, txidBase64 } = entry;
      // The chain's spelling of its id: base58 on Solana and Sui.
      const txid =
        typeof txidBase64 === "string" ? bs58.encode(Buffer.from(txidBase64, "base64")) : undefined;
      lines.push(
        JSON.stringify({ type: "signed", seq, at, intent, txid, transaction: entry.ledger.transaction }),
      );
    }
  });
  if (!result.ok) fail(`record: ${file} is broken at line ${result.line}: ${result.problem}`);
  process.stdout.write(lines.length > 0 ? `${lines.join("\n")}\n` : "");
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
  case "create-ca":
    createCaCommand(args);
    break;
  case "issue-cert":
    issueCert(args);
    break;
  case "gen-crl":
    genCrl(args);
    break;
  case "addresses":
    addresses();
    break;
  case "record":
    record(args);
    break;
  default:
    fail(USAGE);
}
