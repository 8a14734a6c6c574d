import type { KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  createKeyring,
  createPayoutPolicy,
  createRefundAttestationRule,
  createSignerCoreWithRules,
  createSignerServer,
  createSupersessionRule,
  mnemonicToSeed,
  openSignerState,
  type PayoutPolicyOptions,
  type Role,
  signerLimits,
  writeDevCerts,
} from "@gateway/signer";
import {
  approverKeyFromSeed,
  createSignerClient,
  type DepositAddressOutcome,
  DepositIndexIssuedError,
  generateApproverKey,
  type PayoutDestinationEntry,
  type PayoutDestinationInput,
  type SignerClient,
  signAttestation,
  signDestinationApproval,
} from "@gateway/signer-client";
import type { AttestedTransfer } from "@gateway/signer-proto";
import { pino } from "pino";

/**
 * Tests ask the signer for index N's address as a lookup, often more than once; the signer hands
 * each index out once only (docs/operations.md, "Restoring PostgreSQL"), so the client remembers
 * what it was given.
 */
export function rememberAddresses(
  derive: SignerClient["deriveDepositAddress"],
): SignerClient["deriveDepositAddress"] {
  const given = new Map<string, Promise<string>>();
  return (request) => {
    const key = `${request.chain}:${request.mode}:${request.index}`;
    const address = given.get(key) ?? derive(request);
    given.set(key, address);
    return address;
  };
}

/**
 * The batch derivation over a one-at-a-time one (e.g. `rememberAddresses`'s), with the batch
 * call's outcomes: a handed-out index is that request's `issued`.
 */
export function deriveEach(
  derive: SignerClient["deriveDepositAddress"],
): SignerClient["deriveDepositAddresses"] {
  return (requests) =>
    Promise.all(
      requests.map((request) =>
        derive(request).then(
          (address): DepositAddressOutcome => ({ address }),
          (error: unknown): DepositAddressOutcome => {
            if (error instanceof DepositIndexIssuedError) return { issued: error };
            throw error;
          },
        ),
      ),
    );
}

/** The deposit address at `index` of the test signer's seed, computed here without asking the signer. */
export function testDepositAddress(chain: "solana" | "sui", mode: "live" | "test", index: number): string {
  return createKeyring({ seed: mnemonicToSeed(TEST_SIGNER_MNEMONIC) }).key(chain, "deposit", mode, index)
    .address;
}

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
    /** The watchers' attestation key (the signer refunds only attested transfers). */
    watcher: { keyId: string; key: KeyObject; seedHex: string };
  };
  auditPath: string;
  /** A watcher's attestation of a transfer, in the shape refund work carries it. */
  attest(transfer: AttestedTransfer): {
    keyId: string;
    signature: string;
    transferId: string;
    transferAmount: bigint;
  };
  /**
   * Puts an address on a merchant's payout allow-list as the API does after the e-mailed code
   * (the API's certificate and approval key). With the harness's default delay of 0 it is in effect at once.
   */
  allowDestination(destination: PayoutDestinationInput): Promise<PayoutDestinationEntry>;
  close(): Promise<void>;
}

export interface TestSignerOptions {
  /**
   * The payout policy as production runs it (allow-list, bound expiring approvals, velocity):
   * `true` for test defaults (no delay, generous limits) or options over them. Off by default,
   * so suites that pay out without merchants keep their shape.
   */
  payoutPolicy?: boolean | Partial<PayoutPolicyOptions>;
}

const TEST_PAYOUT_POLICY: PayoutPolicyOptions = {
  destinationDelaySeconds: { live: 0, test: 0 },
  approvalMaxTtlSeconds: 900,
  limits: {
    perMerchant: { count: 1_000, amount: 10n ** 15n },
    total: { count: 100_000, amount: 10n ** 16n },
  },
};

/**
 * The real signer, served over gRPC with mutual TLS on a random port, with throwaway certificates,
 * audit log and intent ledger. Tests talk to it exactly as the services do.
 */
export async function startTestSigner(options: TestSignerOptions = {}): Promise<TestSigner> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gw-test-signer-"));
  const certs = writeDevCerts({ dir: path.join(dir, "certs") });
  const settlementKey = generateApproverKey();
  const apiKey = generateApproverKey();
  const watcherKey = generateApproverKey();
  const trusted = [
    {
      keyId: "settlement-test",
      approves: "refund" as const,
      publicKey: Buffer.from(settlementKey.publicKey, "hex"),
    },
    { keyId: "api-test", approves: "payout" as const, publicKey: Buffer.from(apiKey.publicKey, "hex") },
    {
      keyId: "watcher-test",
      approves: "transfer" as const,
      publicKey: Buffer.from(watcherKey.publicKey, "hex"),
    },
  ];
  const auditPath = path.join(dir, "audit.jsonl");
  const payouts = options.payoutPolicy
    ? createPayoutPolicy({
        ...TEST_PAYOUT_POLICY,
        ...(options.payoutPolicy === true ? {} : options.payoutPolicy),
      })
    : undefined;
  // As the process's rules (createPolicyRules): retries of failed intents, attested refunds, payouts.
  const rules = [
    createSupersessionRule(),
    createRefundAttestationRule(trusted),
    ...(payouts ? [payouts] : []),
  ];
  const { audit, ledger, issued } = openSignerState(
    auditPath,
    {
      caps: new Map([
        ["solana:*", { perIntent: 10n ** 15n, perDay: 10n ** 16n }],
        ["sui:*", { perIntent: 10n ** 15n, perDay: 10n ** 16n }],
      ]),
      gasBudgets: new Map([
        ["solana", 10n ** 15n],
        ["sui", 10n ** 18n],
      ]),
      maxSweepsPerDeposit: 8,
    },
    undefined,
    rules,
  );
  const core = createSignerCoreWithRules(
    {
      keyring: createKeyring({ seed: mnemonicToSeed(TEST_SIGNER_MNEMONIC) }),
      ledger,
      audit,
      issued,
      limits: signerLimits({
        maxSuiGasBudget: 50_000_000n,
        maxSuiGasPrice: 5_000n,
        maxSolanaPriorityFeeLamports: 100_000n,
        maxSolanaNonceAccounts: 64,
      }),
      log: pino({ level: "silent" }),
    },
    trusted,
    rules,
  );
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
  const derive = rememberAddresses((request) => clients.api.deriveDepositAddress(request));
  const client: SignerClient = {
    deriveDepositAddress: derive,
    deriveDepositAddresses: deriveEach(derive),
    getServiceAddresses: () => clients.settlement.getServiceAddresses(),
    sign: (input, options) => clients.settlement.sign(input, options),
    signBatch: (inputs, options) => clients.settlement.signBatch(inputs, options),
    getAuditHead: () => clients.settlement.getAuditHead(),
    getAuditEntry: (seq) => clients.settlement.getAuditEntry(seq),
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
      watcher: {
        keyId: "watcher-test",
        key: approverKeyFromSeed(Buffer.from(watcherKey.seed, "hex")),
        seedHex: watcherKey.seed,
      },
    },
    auditPath,
    attest(transfer) {
      const { key_id, signature } = signAttestation(transfer, {
        keyId: "watcher-test",
        key: approverKeyFromSeed(Buffer.from(watcherKey.seed, "hex")),
      });
      return { keyId: key_id, signature, transferId: transfer.transferId, transferAmount: transfer.amount };
    },
    allowDestination: (destination) =>
      clients.api.requestPayoutDestination({
        ...destination,
        approval: signDestinationApproval({
          destination,
          keyId: "api-test",
          privateKey: approverKeyFromSeed(Buffer.from(apiKey.seed, "hex")),
          expiresAtMs: BigInt(Date.now() + 300_000),
        }),
      }),
    async close() {
      client.close();
      await server.stop();
      audit.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
