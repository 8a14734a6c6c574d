// A live payout on the local Sui network through the payout actor: the destination receives the
// net amount from the vault once, and the ledger agrees.
import { randomUUID } from "node:crypto";
import { type Bus, connectBus, createOutboxRelay, type OutboxRelay } from "@gateway/bus";
import { createSuiSettlement } from "@gateway/chain-sui";
import { newId } from "@gateway/db";
import { checkLedger, creditPayment, merchantBalances } from "@gateway/ledger";
import { createLogger } from "@gateway/logging";
import { createPayout, MANUAL_PAYOUT_NETWORK_FEE, type PayoutRow, payoutSubjects } from "@gateway/payouts";
import { signPayoutApproval } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PayoutActor, startPayouts } from "../payouts.js";
import { createChainPayout } from "./chain-payout.js";

const log = createLogger({ name: "sui-payout-test", level: "silent" });
let net: SuiLocalnet;
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let relay: OutboxRelay;
let signer: TestSigner;
let client: SuiGrpcClient;
let actor: PayoutActor;
let vault: string;

beforeAll(async () => {
  [db, net, signer, testBus] = await Promise.all([
    createTestDatabase(),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 }),
    startTestSigner({ payoutPolicy: true }),
    createTestBus(),
  ]);
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 50 });
  await relay.start();
  client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  const wallets = (await signer.client.getServiceAddresses()).sui.live;
  vault = wallets.vault;
  for (let i = 0; i < 4; i++) await net.fund(wallets.gas, "SUI", 1_000_000_000n);
  await net.fund(vault, "USDC", 50_000_000n);
  const sui = createSuiSettlement({
    sql: db.sql,
    client,
    signer: signer.client,
    log,
    coinTypes: { SUI: "0x2::sui::SUI", USDC: net.coinType("USDC"), USDT: net.coinType("USDT") },
    approver: signer.approvers.settlement,
  });
  actor = await startPayouts({
    sql: db.sql,
    bus,
    log,
    chains: { sui: createChainPayout("sui", sui) },
    schedulePollMs: 3_600_000,
  });
});
afterAll(async () => {
  await actor?.stop();
  await relay?.stop();
  await bus?.close();
  await testBus?.cleanup();
  await signer?.close();
  await net?.close();
  await db?.drop();
});

const balance = async (owner: string) =>
  BigInt((await client.getBalance({ owner, coinType: net.coinType("USDC") })).balance.balance);
const payout = (id: string) => db.sql<PayoutRow[]>`select * from payouts where id = ${id}`.then((r) => r[0]!);

describe("Sui payouts on the local network", () => {
  it("pays the destination from the vault once, matching the ledger", async () => {
    const merchantId = newId("mer");
    await db.sql`insert into merchants (id, email, business_name, password_hash)
      values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
    await db.sql.begin((tx) =>
      creditPayment(tx, {
        mode: "live",
        chain: "sui",
        coin: "USDC",
        paymentId: randomUUID(),
        merchantId,
        gross: 20_100_000n,
        fee: 100_000n,
        net: 20_000_000n,
      }),
    );
    const id = newId("po");
    const destination = new Ed25519Keypair().toSuiAddress();
    const networkFee = MANUAL_PAYOUT_NETWORK_FEE.sui;
    const amount = 12_000_000n;
    await signer.allowDestination({
      merchantId,
      chain: "sui",
      mode: "live",
      address: destination,
      linked: false,
    });
    const approval = signPayoutApproval(
      {
        payoutId: id,
        merchantId,
        expiresAtMs: BigInt(Date.now() + 300_000),
        chain: "sui",
        mode: "live",
        asset: net.coinType("USDC"),
        netAmount: amount - networkFee,
        destination,
      },
      signer.approvers.api,
    );
    await db.sql.begin((tx) =>
      createPayout(tx, payoutSubjects(bus.topology), {
        id,
        merchantId,
        mode: "live",
        chain: "sui",
        coin: "USDC",
        amount,
        networkFee,
        destination,
        kind: "manual",
        approval,
      }),
    );
    const vaultBefore = await balance(vault);
    await waitFor(async () => (await payout(id)).status === "completed", {
      timeoutMs: 30_000,
      what: "payout completed",
    });
    expect(await balance(destination)).toBe(amount - networkFee);
    expect(vaultBefore - (await balance(vault))).toBe(amount - networkFee);
    // Handling it again moves nothing more.
    await actor.process(id);
    expect(await balance(destination)).toBe(amount - networkFee);
    expect(await merchantBalances(db.sql, merchantId, "live")).toEqual([
      { chain: "sui", coin: "USDC", available: 8_000_000n, pending: 0n },
    ]);
    expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
  });
});
