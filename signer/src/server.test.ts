// Integration over real gRPC: HTTP/2 with mTLS on a random port, the typed client from
// @gateway/signer-client, and development certificates made by `dev-certs`: each caller
// presents the certificate of its role, and the table in access.ts decides.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSignerClient,
  type IntentInput,
  type SignerClient,
  SignerRefusedError,
} from "@gateway/signer-client";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import { Message, PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestSigner,
  solanaSolPayout,
  solanaTokenSweep,
  suiTokenSweep,
  wallets,
} from "../test/fixtures.js";
import type { Role } from "./access.js";
import { issueCertificate, writeCrl } from "./certificates.js";
import { type DevCertFiles, writeDevCerts } from "./dev-certs.js";
import { createHealthServer, type HealthServer } from "./health.js";
import { createSignerServer, type SignerServer } from "./server.js";

const certs = writeDevCerts({ dir: mkdtempSync(join(tmpdir(), "signer-certs-")) });
const otherCerts = writeDevCerts({ dir: mkdtempSync(join(tmpdir(), "signer-certs-other-")) });
const signer = createTestSigner();
let server: SignerServer;
let health: HealthServer;
let port: number;
let healthPort: number;
/** The API's client: derives addresses. */
let client: SignerClient;
/** Settlement's client: signs. */
let settlement: SignerClient;
const crlFile = join(certs.ca, "..", "crl.pem");

const tlsFrom = (files: DevCertFiles, role: Role) => ({
  ca: readFileSync(certs.ca),
  cert: readFileSync(files.clients[role].cert),
  key: readFileSync(files.clients[role].key),
});
const connect = (tls: { ca: Buffer; cert: Buffer | string; key: Buffer | string }) =>
  createSignerClient({ baseUrl: `https://localhost:${port}`, tls, timeoutMs: 5000 });
const auditLines = () =>
  readFileSync(signer.auditPath, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  writeCrl({ ca: { cert: certs.ca, key: certs.caKey }, revoked: [], out: crlFile });
  server = createSignerServer({
    core: signer.core,
    audit: signer.audit,
    host: "127.0.0.1",
    port: 0,
    tls: { ca: certs.ca, cert: certs.serverCert, key: certs.serverKey, crl: crlFile },
    production: false,
  });
  health = createHealthServer({ port: 0, ready: () => server.listening });
  healthPort = (await health.start()).port;
  port = (await server.start()).port;
  client = connect(tlsFrom(certs, "api"));
  settlement = connect(tlsFrom(certs, "settlement"));
});

afterAll(async () => {
  client.close();
  settlement.close();
  await server.stop();
  await health.stop();
  signer.close();
});

describe("signer over gRPC with mTLS", () => {
  it("derives deposit addresses and reports the service wallets", async () => {
    const address = await client.deriveDepositAddress({ chain: "sui", mode: "test", index: 42 });
    expect(address).toBe(signer.keyring.key("sui", "deposit", "test", 42).address);
    const book = await client.getServiceAddresses();
    expect(book.solana.live).toEqual({
      vault: wallets(signer.keyring, "solana").vault,
      gas: wallets(signer.keyring, "solana").gas,
    });
    expect(book.sui.test.vault).toBe(signer.keyring.key("sui", "vault", "test").address);
  });

  it("rejects an index outside the hardened range", async () => {
    await expect(
      client.deriveDepositAddress({ chain: "solana", mode: "live", index: 2 ** 31 }),
    ).rejects.toThrow(/index/);
  });

  it("signs a valid sweep; the signatures verify with web3.js", async () => {
    const { intent, tx } = solanaTokenSweep(signer.keyring, 1);
    const signed = await settlement.sign({ intent, unsignedTransaction: tx });
    const transaction = Transaction.populate(Message.from(Buffer.from(tx)));
    for (const s of signed.signatures)
      transaction.addSignature(new PublicKey(s.address), Buffer.from(s.signature));
    expect(transaction.verifySignatures()).toBe(true);
  });

  it("turns a refusal into SignerRefusedError with the code", async () => {
    const { intent, tx } = solanaTokenSweep(signer.keyring, 2);
    const error = await settlement
      .sign({ intent: { ...intent, amount: intent.amount + 1n }, unsignedTransaction: tx })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SignerRefusedError);
    expect((error as SignerRefusedError).refusal.code).toBe("WRONG_AMOUNT");
  });

  it("decides a batch item by item", async () => {
    const sweep = await suiTokenSweep(signer.keyring, 3);
    const payout = solanaSolPayout(signer.keyring, signer.approvers);
    const bad = solanaSolPayout(signer.keyring, signer.approvers);
    const outcomes = await settlement.signBatch([
      { intent: sweep.intent, unsignedTransaction: sweep.tx, suiObjects: sweep.objects },
      { intent: payout.intent, unsignedTransaction: payout.tx },
      { intent: { ...bad.intent, approval: undefined } as IntentInput, unsignedTransaction: bad.tx },
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
    const [first, , third] = outcomes;
    if (!first?.ok || third?.ok !== false) throw new Error("unexpected outcomes");
    for (const s of first.signed.signatures) {
      await verifyTransactionSignature(sweep.tx, s.serialized, { address: s.address });
    }
    expect(third.refusal.code).toBe("APPROVAL_MISSING");
  });

  it("refuses a client without a certificate", async () => {
    const anonymous = createSignerClient({
      baseUrl: `https://localhost:${port}`,
      tls: { ca: readFileSync(certs.ca), cert: "", key: "" },
      timeoutMs: 3000,
    });
    await expect(anonymous.getServiceAddresses()).rejects.toThrow();
    anonymous.close();
  });

  it("refuses a client whose certificate another CA signed", async () => {
    const stranger = createSignerClient({
      baseUrl: `https://localhost:${port}`,
      tls: { ...tlsFrom(otherCerts, "settlement"), ca: readFileSync(certs.ca) },
      timeoutMs: 3000,
    });
    await expect(stranger.getServiceAddresses()).rejects.toThrow();
    stranger.close();
  });

  it("refuses the API's certificate on Sign and SignBatch, and audits the refusal", async () => {
    const { intent, tx } = solanaTokenSweep(signer.keyring, 4);
    const error = await client.sign({ intent, unsignedTransaction: tx }).catch((e) => e);
    // The one set of refusal codes: the gate's refusal reaches the caller as a typed RefusalDetail.
    expect(error).toBeInstanceOf(SignerRefusedError);
    expect(error.refusal).toMatchObject({ code: "ROLE_NOT_ALLOWED" });
    expect(String(error)).toMatch(/ROLE_NOT_ALLOWED: role api may not call Sign/);
    await expect(client.signBatch([{ intent, unsignedTransaction: tx }])).rejects.toThrow(
      /ROLE_NOT_ALLOWED: role api may not call SignBatch/,
    );
    const refusals = auditLines().filter((l) => l.code === "ROLE_NOT_ALLOWED");
    expect(refusals.at(-1)).toMatchObject({
      decision: "refused",
      intent: { rpc: "SignBatch", role: "api", certificate: { subject: "CN=gateway-signer-client-api" } },
    });
    // Nothing was decided: the intent id is still free for settlement.
    expect((await settlement.sign({ intent, unsignedTransaction: tx })).intentId).toBe(intent.intentId);
  });

  it("refuses settlement's certificate on the API-only DeriveDepositAddress", async () => {
    await expect(
      settlement.deriveDepositAddress({ chain: "solana", mode: "live", index: 1 }),
    ).rejects.toThrow(/ROLE_NOT_ALLOWED: role settlement may not call DeriveDepositAddress/);
    expect((await settlement.getServiceAddresses()).solana.live.vault).toBe(
      wallets(signer.keyring, "solana").vault,
    );
  });

  it("derives a batch, each item on its own; a bad item fails the call and hands nothing out", async () => {
    const before = auditLines().length;
    await client.deriveDepositAddress({ chain: "sui", mode: "live", index: 900 });
    const outcomes = await client.deriveDepositAddresses([
      { chain: "solana", mode: "test", index: 901 },
      { chain: "sui", mode: "live", index: 900 },
      { chain: "sui", mode: "live", index: 902 },
    ]);
    expect(outcomes[0]).toEqual({ address: signer.keyring.key("solana", "deposit", "test", 901).address });
    expect("issued" in outcomes[1]! && outcomes[1].issued.highestIssued).toBeGreaterThanOrEqual(900);
    expect(outcomes[2]).toEqual({ address: signer.keyring.key("sui", "deposit", "live", 902).address });
    // One audit line per address handed out, none for the refused repeat.
    expect(
      auditLines()
        .slice(before)
        .filter((l) => l.decision === "address")
        .map((l) => l.index),
    ).toEqual([900, 901, 902]);
    const afterBatch = auditLines().length;
    await expect(
      client.deriveDepositAddresses([
        { chain: "solana", mode: "test", index: 903 },
        { chain: "solana", mode: "test", index: 2 ** 31 },
      ]),
    ).rejects.toThrow(/index must be below 2\^31/);
    expect(auditLines()).toHaveLength(afterBatch);
    await expect(
      settlement.deriveDepositAddresses([{ chain: "solana", mode: "live", index: 904 }]),
    ).rejects.toThrow(/ROLE_NOT_ALLOWED: role settlement may not call DeriveDepositAddresses/);
  });

  it("refuses a certificate of our CA that names no role, on every RPC", async () => {
    const dir = mkdtempSync(join(tmpdir(), "signer-norole-"));
    const bare = issueCertificate({
      ca: { cert: certs.ca, key: certs.caKey },
      dir,
      name: "bare",
      usage: { kind: "client", role: undefined },
      days: 1,
    });
    const nobody = connect({
      ca: readFileSync(certs.ca),
      cert: readFileSync(bare.cert),
      key: readFileSync(bare.key),
    });
    await expect(nobody.getServiceAddresses()).rejects.toThrow(/UNKNOWN_ROLE: certificate names no role/);
    await expect(nobody.deriveDepositAddress({ chain: "sui", mode: "test", index: 1 })).rejects.toThrow(
      /UNKNOWN_ROLE/,
    );
    nobody.close();
    expect(auditLines().at(-1)).toMatchObject({
      code: "UNKNOWN_ROLE",
      intent: { rpc: "DeriveDepositAddress" },
    });
  });

  it("refuses a revoked certificate once the CRL is reloaded, ending its open session", async () => {
    const dir = mkdtempSync(join(tmpdir(), "signer-revoked-"));
    const doomed = issueCertificate({
      ca: { cert: certs.ca, key: certs.caKey },
      dir,
      name: "doomed",
      usage: { kind: "client", role: "settlement" },
      days: 1,
    });
    const victim = connect({
      ca: readFileSync(certs.ca),
      cert: readFileSync(doomed.cert),
      key: readFileSync(doomed.key),
    });
    await victim.getServiceAddresses();
    expect(server.reloadTls()).toBe(false);
    const next = join(dir, "crl.pem");
    writeCrl({ ca: { cert: certs.ca, key: certs.caKey }, revoked: [doomed.cert], out: next });
    writeFileSync(crlFile, readFileSync(next));
    expect(server.reloadTls()).toBe(true);
    await expect(victim.getServiceAddresses()).rejects.toThrow();
    victim.close();
    const again = connect({
      ca: readFileSync(certs.ca),
      cert: readFileSync(doomed.cert),
      key: readFileSync(doomed.key),
    });
    await expect(again.getServiceAddresses()).rejects.toThrow();
    again.close();
    // Everyone else reconnects.
    expect((await settlement.getServiceAddresses()).sui.live.vault).toMatch(/^0x/);
  });

  it("refuses plaintext on the TLS port", async () => {
    const plain = createSignerClient({ baseUrl: `http://localhost:${port}`, timeoutMs: 3000 });
    await expect(plain.getServiceAddresses()).rejects.toThrow();
    plain.close();
  });

  it("answers health and readiness on the loopback port", async () => {
    expect((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status).toBe(200);
  });
});
