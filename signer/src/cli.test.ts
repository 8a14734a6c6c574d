// The operator commands as an operator runs them.
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chain, Mode } from "@gateway/signer-proto";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { createTestSigner, request, solanaSolPayout } from "../test/fixtures.js";
import { loadSeed } from "./seed.js";
import { openAuditLog } from "./storage/audit-file.js";

const CLI = new URL("./cli.ts", import.meta.url).pathname;
const MNEMONIC = "test test test test test test test test test test test junk";

function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", CLI, ...args], {
    input: options.input ?? "",
    env: { PATH: process.env.PATH ?? "", ...options.env },
    encoding: "utf8",
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe("signer cli", () => {
  const dir = mkdtempSync(join(tmpdir(), "signer-cli-"));

  it("seals a mnemonic that the signer can load, and never overwrites", () => {
    const file = join(dir, "seed.json");
    const env = { SIGNER_SEED_PASSPHRASE: "a long enough passphrase" };
    const sealed = cli(["seal", "--out", file], { input: `${MNEMONIC}\n`, env });
    expect(sealed.status).toBe(0);
    expect(readFileSync(file, "utf8")).not.toContain("junk");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const seed = loadSeed({
      kind: "sealed",
      file,
      passphrase: { kind: "value", value: env.SIGNER_SEED_PASSPHRASE },
    });
    expect(seed).toHaveLength(64);
    expect(cli(["seal", "--out", file], { input: MNEMONIC, env }).status).not.toBe(0);
  }, 90_000);

  it("verifies an audit log and reports a broken one", async () => {
    const file = join(dir, "audit.jsonl");
    const log = openAuditLog(file);
    for (const id of ["a", "b", "c"])
      log.append({ decision: "refused", intent: { intentId: id }, code: "X", reason: "y" });
    await log.sync();
    log.close();
    expect(cli(["verify-audit", file])).toMatchObject({
      status: 0,
      out: expect.stringContaining("ok: 4 entries"),
    });
    // A head a caller stored: the log still holds it; cut back below it, it fails.
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { seq: number; hash: string };
    expect(cli(["verify", file, "--head", `${last.seq}:${last.hash}`]).status).toBe(0);
    writeFileSync(file, `${lines.slice(0, -1).join("\n")}\n`);
    expect(cli(["verify", file, "--head", `${last.seq}:${last.hash}`])).toMatchObject({
      status: 1,
      out: expect.stringContaining("truncated"),
    });
    writeFileSync(file, `${lines.join("\n")}\n`.replace('"intentId":"b"', '"intentId":"z"'));
    expect(cli(["verify-audit", file])).toMatchObject({ status: 1, out: expect.stringContaining("line 3") });
  }, 60_000);

  it("verifies the whole chain across checkpoints: archived segments, state files and a stored head", async () => {
    const signer = createTestSigner();
    const { intent, tx } = solanaSolPayout(signer.keyring, signer.approvers, 1_000_000n);
    expect(signer.core.decide(request(intent, tx)).ok).toBe(true);
    const before = signer.audit.head();
    signer.checkpoint();
    signer.core.deriveDepositAddress(Chain.SOLANA, Mode.LIVE, 8);
    signer.checkpoint();
    await signer.core.sync();
    const head = signer.audit.head();
    signer.close();
    expect(cli(["verify", signer.auditPath, "--head", `${before.seq}:${before.hash}`])).toMatchObject({
      status: 0,
      out: expect.stringContaining(
        `ok: ${head.seq} entries, last hash ${head.hash}, 2 checkpoint state files`,
      ),
    });
    expect(cli(["verify", signer.auditPath, "--head", `${before.seq}:${"0".repeat(64)}`])).toMatchObject({
      status: 1,
      out: expect.stringContaining("replaced"),
    });
    // The first signing is still printed for the restore runbook, from its archived segment.
    expect(cli(["record", signer.auditPath]).out).toContain(intent.intentId);
  }, 60_000);

  it("prints what a restored database must learn again: first signings and deposit indices", async () => {
    const signer = createTestSigner();
    const address = signer.core.deriveDepositAddress(Chain.SUI, Mode.LIVE, 3);
    const { intent, tx } = solanaSolPayout(signer.keyring, signer.approvers, 2_500_000n);
    const first = signer.core.decide(request(intent, tx));
    expect(first.ok).toBe(true);
    expect(signer.core.decide(request(intent, tx)).ok).toBe(true); // a repeat: not printed again
    await signer.core.sync();
    signer.close();
    const printed = cli(["record", signer.auditPath]);
    expect(printed.status).toBe(0);
    const lines = printed.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ type: "address", chain: "sui", mode: "live", index: 3, address });
    expect(lines[1]).toMatchObject({
      type: "signed",
      intent: {
        intentId: intent.intentId,
        kind: "payout",
        chain: "solana",
        mode: "live",
        amount: "2500000",
        reference: "po_test",
      },
    });
    if (!first.ok) throw new Error("unreachable");
    expect(Buffer.from(lines[1].transaction, "base64")).toEqual(Buffer.from(first.response.transaction));
    // Solana knows the transaction by its fee payer's (the gas wallet's) signature.
    expect(lines[1].txid).toBe(bs58.encode(first.response.signatures[0]!.signature));
    // A damaged log is never read as a record.
    writeFileSync(signer.auditPath, readFileSync(signer.auditPath, "utf8").replace('"index":3', '"index":4'));
    expect(cli(["record", signer.auditPath])).toMatchObject({
      status: 2,
      out: expect.stringContaining("broken"),
    });
  }, 60_000);

  it("writes development certificates, one client certificate per role, under a marked CA", () => {
    const certs = join(dir, "certs");
    expect(cli(["dev-certs", certs, "signer.internal"]).status).toBe(0);
    for (const name of [
      "ca.pem",
      "server.pem",
      "server-key.pem",
      "api.pem",
      "api-key.pem",
      "settlement.pem",
    ]) {
      expect(existsSync(join(certs, name))).toBe(true);
    }
    expect(new X509Certificate(readFileSync(join(certs, "ca.pem"))).subject).toContain(
      "O=Gateway Development CA",
    );
    expect(new X509Certificate(readFileSync(join(certs, "api.pem"))).subjectAltName).toBe(
      "URI:urn:gateway:signer-role:api",
    );
  }, 60_000);

  it("creates a production CA, issues role certificates without the CA key, and revokes them", () => {
    const ca = join(dir, "ca");
    expect(cli(["create-ca", ca]).status).toBe(0);
    expect(cli(["create-ca", ca]).status).not.toBe(0);
    const out = join(dir, "issued-settlement");
    const issued = cli(["issue-cert", "settlement", out, "--ca-dir", ca, "--days", "7"]);
    expect(issued).toMatchObject({ status: 0 });
    expect(readdirSync(out).sort()).toEqual(["ca.crt", "tls.crt", "tls.key"]);
    const cert = new X509Certificate(readFileSync(join(out, "tls.crt")));
    expect(cert.subjectAltName).toBe("URI:urn:gateway:signer-role:settlement");
    expect(cert.checkIssued(new X509Certificate(readFileSync(join(ca, "ca.pem"))))).toBe(true);
    expect(Date.parse(cert.validTo) - Date.now()).toBeLessThan(8 * 86_400_000);
    expect(statSync(join(out, "tls.key")).mode & 0o777).toBe(0o600);
    expect(cli(["issue-cert", "admin", join(dir, "x"), "--ca-dir", ca]).status).toBe(2);
    const server = join(dir, "issued-signer");
    expect(cli(["issue-cert", "signer", server, "--ca-dir", ca, "--host", "signer"]).status).toBe(0);
    expect(new X509Certificate(readFileSync(join(server, "tls.crt"))).subjectAltName).toContain("DNS:signer");
    const crl = join(dir, "crl.pem");
    expect(cli(["gen-crl", "--ca-dir", ca, "--out", crl, join(out, "tls.crt")]).status).toBe(0);
    expect(readFileSync(crl, "utf8")).toContain("BEGIN X509 CRL");
  }, 60_000);

  it("prints usage for an unknown command", () => {
    expect(cli(["nope"])).toMatchObject({ status: 2, out: expect.stringContaining("usage") });
  }, 60_000);
});
