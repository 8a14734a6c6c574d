// Integration over real gRPC: HTTP/2 with mTLS on a random port, the typed client from
// @gateway/signer-client, and development certificates made by `dev-certs`.
import { mkdtempSync, readFileSync } from "node:fs";
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
import { writeDevCerts } from "./dev-certs.js";
import { createHealthServer, type HealthServer } from "./health.js";
import { createSignerServer, type SignerServer } from "./server.js";
import {
  createTestSigner,
  solanaSolPayout,
  solanaTokenSweep,
  suiTokenSweep,
  wallets,
} from "./test-fixtures.js";

const certs = writeDevCerts({ dir: mkdtempSync(join(tmpdir(), "signer-certs-")) });
const otherCerts = writeDevCerts({ dir: mkdtempSync(join(tmpdir(), "signer-certs-other-")) });
const signer = createTestSigner();
let server: SignerServer;
let health: HealthServer;
let port: number;
let healthPort: number;
let client: SignerClient;

const tlsFrom = (files: typeof certs) => ({
  ca: readFileSync(certs.ca),
  cert: readFileSync(files.clientCert),
  key: readFileSync(files.clientKey),
});

beforeAll(async () => {
  server = createSignerServer({
    core: signer.core,
    host: "127.0.0.1",
    port: 0,
    tls: { ca: certs.ca, cert: certs.serverCert, key: certs.serverKey },
  });
  health = createHealthServer({ port: 0, ready: () => server.listening });
  healthPort = (await health.start()).port;
  port = (await server.start()).port;
  client = createSignerClient({ baseUrl: `https://localhost:${port}`, tls: tlsFrom(certs) });
});

afterAll(async () => {
  client.close();
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
    const signed = await client.sign({ intent, unsignedTransaction: tx });
    const transaction = Transaction.populate(Message.from(Buffer.from(tx)));
    for (const s of signed.signatures)
      transaction.addSignature(new PublicKey(s.address), Buffer.from(s.signature));
    expect(transaction.verifySignatures()).toBe(true);
  });

  it("turns a refusal into SignerRefusedError with the code", async () => {
    const { intent, tx } = solanaTokenSweep(signer.keyring, 2);
    const error = await client
      .sign({ intent: { ...intent, amount: intent.amount + 1n }, unsignedTransaction: tx })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SignerRefusedError);
    expect((error as SignerRefusedError).refusal.code).toBe("WRONG_AMOUNT");
  });

  it("decides a batch item by item", async () => {
    const sweep = await suiTokenSweep(signer.keyring, 3);
    const payout = solanaSolPayout(signer.keyring, signer.approvers);
    const bad = solanaSolPayout(signer.keyring, signer.approvers);
    const outcomes = await client.signBatch([
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
      tls: tlsFrom(otherCerts),
      timeoutMs: 3000,
    });
    await expect(stranger.getServiceAddresses()).rejects.toThrow();
    stranger.close();
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
