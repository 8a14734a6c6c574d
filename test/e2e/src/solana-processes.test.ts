// The Solana live path with settlement and two watcher replicas as their own processes, started
// from their main.ts with environment variables as the local runner starts them: checks the
// wiring (config schemas, signer client over mTLS, approver key, provider registration), then
// issue 11's failover: one replica SIGKILLed, the other takes over its addresses (measured).
import { type Bus, connectBus } from "@gateway/bus";
import { newId } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { Connection, Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type ServiceProcess, startService, waitForReady } from "./processes.js";
import {
  createLivePayment,
  eventsOf,
  payToken,
  registered,
  statusOf,
  tokenBalance,
} from "./solana-harness.js";

const AUTH = "Bearer processes-webhook-secret-0123";
const log = createLogger({ name: "solana-processes", level: "silent" });
let net: SolanaLocalnet;
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let signer: TestSigner;
let connection: Connection;
let settlement: ServiceProcess;
const watchers: ServiceProcess[] = [];
/** Each replica's provider webhook URL; the replica that leads registers the open addresses. */
const webhookUrls: string[] = [];
const merchantId = newId("mer");

beforeAll(async () => {
  net = await createSolanaLocalnet({
    rpcPort: 0,
    wsPort: 0,
    slotMs: 20,
    finalitySlots: 4,
    webhookRetries: 0,
  });
  db = await createTestDatabase();
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "solana-processes", log });
  signer = await startTestSigner();
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
  const wallets = (await signer.client.getServiceAddresses()).solana.live;
  net.fund(wallets.gas, "SOL", "10");
  net.fund(wallets.vault, "USDC", "0.000001");
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;

  const common = {
    DATABASE_URL: db.url,
    NATS_URL: testBus.natsUrl,
    BUS_PREFIX: testBus.prefix,
    SOLANA_RPC_URL: net.rpcUrl,
    SOLANA_WS_URL: net.wsUrl,
    SOLANA_NETWORK: "localnet",
    SOLANA_GENESIS_HASH: net.genesisHash,
  };
  const settlementHealth = await freePort();
  settlement = startService("services/settlement", {
    ...common,
    HEALTH_PORT: String(settlementHealth),
    EXPIRY_POLL_MS: "200",
    SIGNER_URL: signer.url,
    SIGNER_CA_FILE: signer.tls.settlement.ca,
    SIGNER_CERT_FILE: signer.tls.settlement.cert,
    SIGNER_KEY_FILE: signer.tls.settlement.key,
    SETTLEMENT_APPROVER_KEY_ID: signer.approvers.settlement.keyId,
    SETTLEMENT_APPROVER_SEED: signer.approvers.settlement.seedHex,
  });
  await waitForReady(`http://127.0.0.1:${settlementHealth}/readyz`, settlement, 60_000);
  for (const replica of ["w1", "w2"]) {
    const health = await freePort();
    const ingress = await freePort();
    const url = `http://127.0.0.1:${ingress}/webhooks/solana`;
    webhookUrls.push(url);
    const watcher = startService("services/watcher", {
      ...common,
      WATCHER_CHAIN: "solana",
      REPLICA_ID: replica,
      HEARTBEAT_MS: "500",
      HEALTH_PORT: String(health),
      PORT: String(ingress),
      WEBHOOK_AUTH_HEADER: AUTH,
      PROVIDER_API_URL: net.rpcUrl,
      WATCHER_PUBLIC_URL: url,
      SIGNATURE_POLL_MS: "50",
      OPEN_ADDRESS_REFRESH_MS: "100",
      RECONCILE_CALLS_PER_SECOND: "50",
      // Final reports carry this watcher's attestation; the signer refunds only attested transfers.
      WATCHER_ATTESTATION_KEY_ID: signer.approvers.watcher.keyId,
      WATCHER_ATTESTATION_SEED: signer.approvers.watcher.seedHex,
    });
    watchers.push(watcher);
    await waitForReady(`http://127.0.0.1:${health}/readyz`, watcher, 60_000);
  }
}, 180_000);
afterAll(async () => {
  await Promise.all(watchers.map((w) => w.stop("SIGKILL")));
  await settlement?.stop();
  await bus?.close();
  await signer?.close();
  await net?.close();
  await testBus?.cleanup();
  await db?.drop();
});

describe("Solana live path across processes", () => {
  it("an overpaid payment completes through the watcher and settlement processes, surplus returned", async () => {
    const payer = Keypair.generate();
    net.fund(payer.publicKey.toBase58(), "SOL", "1");
    net.fund(payer.publicKey.toBase58(), "USDC", "20");
    const payment = await createLivePayment({ db, bus, signer, merchantId });
    await waitFor(
      async () => {
        for (const webhookUrl of webhookUrls)
          if (await registered({ net, webhookUrl }, payment.address)) return true;
        return false;
      },
      {
        what: "address registered by the watcher process",
        timeoutMs: 15_000,
      },
    );
    await payToken({ net, connection }, payer, payment.address, "USDC", 13_000_000n);
    await waitFor(async () => (await statusOf({ db }, payment.id)) === "completed", {
      what: "completed",
      timeoutMs: 30_000,
    });
    expect(await eventsOf({ db }, payment.id)).toEqual([
      "payment.confirming",
      "payment.confirmed",
      "payment.completed",
    ]);
    await waitFor(
      async () =>
        (await tokenBalance({ net, connection }, payer.publicKey.toBase58(), "USDC")) === 7_500_000n,
      { what: "surplus back to the payer", timeoutMs: 30_000 },
    );
  });

  it("a killed replica's addresses are taken over by the other, and every payment completes", async () => {
    const payments: Awaited<ReturnType<typeof createLivePayment>>[] = [];
    for (let i = 0; i < 6; i++) payments.push(await createLivePayment({ db, bus, signer, merchantId }));
    // Both replicas are live and split the open addresses between them.
    await waitFor(
      async () =>
        (
          await db.sql`select 1 from watcher_replicas where chain = 'solana' and heartbeat_at > now() - interval '2 seconds'`
        ).length === 2,
      { what: "two live replicas", timeoutMs: 15_000 },
    );
    const killedAt = Date.now();
    await watchers[0]!.stop("SIGKILL");
    const payer = Keypair.generate();
    net.fund(payer.publicKey.toBase58(), "SOL", "1");
    net.fund(payer.publicKey.toBase58(), "USDC", "100");
    for (const payment of payments)
      await payToken({ net, connection }, payer, payment.address, "USDC", payment.amountDue);
    await waitFor(
      async () => {
        for (const payment of payments)
          if ((await statusOf({ db }, payment.id)) !== "completed") return false;
        return true;
      },
      { what: "every payment completed after the kill", timeoutMs: 60_000 },
    );
    const takeoverMs = Date.now() - killedAt;
    for (const payment of payments) {
      expect(await eventsOf({ db }, payment.id)).toEqual([
        "payment.confirming",
        "payment.confirmed",
        "payment.completed",
      ]);
    }
    console.log(
      `watcher failover: replica killed; 6 payments paid after the kill all completed within ${takeoverMs} ms`,
    );
  }, 120_000);
});
