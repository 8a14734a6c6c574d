import type { KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  createApprovalVerifier,
  createKeyring,
  createSignerCore,
  createSignerServer,
  mnemonicToSeed,
  openSignerState,
  type Role,
  signerLimits,
  writeDevCerts,
} from "@gateway/signer";
import {
  approverKeyFromSeed,
  createSignerClient,
  generateApproverKey,
  type SignerClient,
} from "@gateway/signer-client";
import { pino } from "pino";

/** A fixed development mnemonic: test addresses are reproducible across runs. Never funded for real. */
export const TEST_SIGNER_MNEMONIC = "test test test test test test test test test test test junk";

export interface TestSigner {
  url: string;
  /**
   * The API and settlement together: each RPC goes through the certificate of the role that
   * makes it in production (addresses as the API, signing as settlement).
   */
  client: SignerClient;
  /** One client per role, each with its own certificate. */
  clients: Record<Role, SignerClient>;
  /** Per role, files for services that connect themselves (SIGNER_CA_FILE, SIGNER_CERT_FILE, SIGNER_KEY_FILE). */
  tls: Record<Role, { ca: string; cert: string; key: string }>;
  approvers: {
    settlement: { keyId: string; key: KeyObject; seedHex: string };
    api: { keyId: string; key: KeyObject; seedHex: string };
  };
  auditPath: string;
  close(): Promise<void>;
}

/**
 * The real signer, served over gRPC with mutual TLS on a random port, with throwaway certificates,
 * audit log and intent ledger. Tests talk to it exactly as the services do.
 */
export async function startTestSigner(): Promise<TestSigner> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gw-test-signer-"));
  const certs = writeDevCerts({ dir: path.join(dir, "certs") });
  const settlementKey = generateApproverKey();
  const apiKey = generateApproverKey();
  const auditPath = path.join(dir, "audit.jsonl");
  const { audit, ledger } = openSignerState(auditPath, {
    caps: new Map([
      ["solana:*", { perIntent: 10n ** 15n, perDay: 10n ** 16n }],
      ["sui:*", { perIntent: 10n ** 15n, perDay: 10n ** 16n }],
    ]),
    gasBudgets: new Map([
      ["solana", 10n ** 15n],
      ["sui", 10n ** 18n],
    ]),
    maxSweepsPerDeposit: 8,
  });
  const core = createSignerCore({
    keyring: createKeyring({ seed: mnemonicToSeed(TEST_SIGNER_MNEMONIC) }),
    approvals: createApprovalVerifier([
      {
        keyId: "settlement-test",
        approves: "refund",
        publicKey: Buffer.from(settlementKey.publicKey, "hex"),
      },
      { keyId: "api-test", approves: "payout", publicKey: Buffer.from(apiKey.publicKey, "hex") },
    ]),
    ledger,
    audit,
    limits: signerLimits({
      maxSuiGasBudget: 50_000_000n,
      maxSuiGasPrice: 5_000n,
      maxSolanaPriorityFeeLamports: 100_000n,
      maxSolanaNonceAccounts: 64,
    }),
    log: pino({ level: "silent" }),
  });
  const server = createSignerServer({
    core,
    audit,
    host: "127.0.0.1",
    port: 0,
    tls: { ca: certs.ca, cert: certs.serverCert, key: certs.serverKey },
    production: false,
  });
  const { port } = await server.start();
  const url = `https://127.0.0.1:${port}`;
  const tls = (role: Role) => ({
    ca: certs.ca,
    cert: certs.clients[role].cert,
    key: certs.clients[role].key,
  });
  const connect = (role: Role) =>
    createSignerClient({
      baseUrl: url,
      tls: {
        ca: readFileSync(certs.ca),
        cert: readFileSync(certs.clients[role].cert),
        key: readFileSync(certs.clients[role].key),
      },
    });
  const clients = { api: connect("api"), settlement: connect("settlement") };
  const client: SignerClient = {
    deriveDepositAddress: (request) => clients.api.deriveDepositAddress(request),
    getServiceAddresses: () => clients.settlement.getServiceAddresses(),
    sign: (input) => clients.settlement.sign(input),
    signBatch: (inputs) => clients.settlement.signBatch(inputs),
    getAuditHead: () => clients.settlement.getAuditHead(),
    requestPayoutDestination: (request) => clients.api.requestPayoutDestination(request),
    cancelPayoutDestination: (request) => clients.api.cancelPayoutDestination(request),
    listPayoutDestinations: (merchantId) => clients.api.listPayoutDestinations(merchantId),
    close() {
      clients.api.close();
      clients.settlement.close();
    },
  };
  return {
    url,
    client,
    clients,
    tls: { api: tls("api"), settlement: tls("settlement") },
    approvers: {
      settlement: {
        keyId: "settlement-test",
        key: approverKeyFromSeed(Buffer.from(settlementKey.seed, "hex")),
        seedHex: settlementKey.seed,
      },
      api: {
        keyId: "api-test",
        key: approverKeyFromSeed(Buffer.from(apiKey.seed, "hex")),
        seedHex: apiKey.seed,
      },
    },
    auditPath,
    async close() {
      client.close();
      await server.stop();
      audit.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
