// The live Sui flow in one process, on real infrastructure: the local Sui network over gRPC-Web,
// the real signer over mTLS, PostgreSQL, NATS JetStream, settlement with the Sui chain
// settlement, and the checkpoint watcher.
import { randomUUID } from "node:crypto";
import { type Bus, connectBus } from "@gateway/bus";
import { createSuiSettlement } from "@gateway/chain-sui";
import { type SuiWatcher, startSuiWatcher } from "@gateway/chain-sui/watcher";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES, toCoinUnits } from "@gateway/domain";
import { createLogger, type Logger } from "@gateway/logging";
import { applyPaymentMessage, insertPayment } from "@gateway/payments";
import { type Settlement, startSettlement } from "@gateway/settlement";
import type { ServiceWallets } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Inputs, Transaction } from "@mysten/sui/transactions";
import { normalizeSuiAddress } from "@mysten/sui/utils";

export type SuiCoin = "SUI" | "USDC" | "USDT";

export interface SuiHarness {
  net: SuiLocalnet;
  db: TestDatabase;
  testBus: TestBus;
  bus: Bus;
  signer: TestSigner;
  client: SuiGrpcClient;
  wallets: ServiceWallets;
  watcher: SuiWatcher;
  settlement: Settlement;
  merchantId: string;
  log: Logger;
  /** Stops the watcher and starts a new one (same database, fresh memory). */
  restartWatcher(between?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function startSuiHarness(options: { checkpointIntervalMs?: number } = {}): Promise<SuiHarness> {
  const log = createLogger({ name: "sui-e2e", level: process.env["E2E_LOG_LEVEL"] ?? "silent" });
  const [net, db, testBus, signer] = await Promise.all([
    createSuiLocalnet({ port: 0, checkpointIntervalMs: options.checkpointIntervalMs ?? 50 }),
    createTestDatabase(),
    createTestBus(),
    startTestSigner(),
  ]);
  const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "sui-e2e", log });
  const client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  const wallets = (await signer.client.getServiceAddresses()).sui.live;
  // The gas wallet pays every fee; several coins let sponsored transactions run side by side.
  for (let i = 0; i < 6; i++) await net.fund(wallets.gas, "SUI", 2_000_000_000n);
  const coinTypes = { SUI: "0x2::sui::SUI", USDC: net.coinType("USDC"), USDT: net.coinType("USDT") };

  const merchantId = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash) values (${merchantId}, 'm@example.test', 'Shop', 'x')`;
  const settlement = await startSettlement({
    sql: db.sql,
    bus,
    log,
    publicBaseUrl: "https://pay.example",
    expiryPollMs: 100,
    outboxPollMs: 25,
    chains: {
      sui: createSuiSettlement({
        sql: db.sql,
        client,
        signer: signer.client,
        approver: signer.approvers.settlement,
        coinTypes,
        log,
      }),
    },
  });
  const startWatcher = () =>
    startSuiWatcher({
      sql: db.sql,
      bus,
      client,
      log,
      coinTypes,
      replicaId: "watcher-sui-1",
      outboxPollMs: 25,
      heartbeatMs: 500,
      attestor: signer.approvers.watcher,
    });
  const h: SuiHarness = {
    net,
    db,
    testBus,
    bus,
    signer,
    client,
    wallets: { vault: normalizeSuiAddress(wallets.vault), gas: normalizeSuiAddress(wallets.gas) },
    watcher: await startWatcher(),
    settlement,
    merchantId,
    log,
    async restartWatcher(between) {
      await h.watcher.stop();
      await between?.();
      h.watcher = await startWatcher();
    },
    async close() {
      await h.watcher.stop();
      await settlement.stop();
      await bus.close();
      await signer.close();
      await net.close();
      await testBus.cleanup();
      await db.drop();
    },
  };
  return h;
}

export interface LivePayment {
  id: string;
  address: string;
  amountDue: bigint;
}

/** A live USD payment with a Sui deposit wallet, as the API's generate-wallet makes it. */
export async function createLivePayment(
  h: SuiHarness,
  options: { amountCents?: bigint; coin?: "USDC" | "USDT"; expiresInMs?: number } = {},
): Promise<LivePayment> {
  const amount = options.amountCents ?? 1250n;
  const coin = options.coin ?? "USDC";
  const state = initialPaymentState({
    id: randomUUID(),
    mode: "live",
    currency: "USD",
    amount,
    fee: computeFee(amount, "USD", STATIC_TEST_PRICES),
    expiresAt: Date.now() + (options.expiresInMs ?? 600_000),
  });
  await insertPayment(h.db.sql, { state, merchantId: h.merchantId, description: null, redirectUrl: null });
  const [next] = await h.db.sql<{ index: bigint }[]>`select nextval('deposit_index_sui_live') as index`;
  const index = next!.index;
  const address = await h.signer.client.deriveDepositAddress({
    chain: "sui",
    mode: "live",
    index: Number(index),
  });
  const amountDue = toCoinUnits(amount, "USD", coin);
  await h.db.sql`
    insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
    values (${newId("dw")}, ${state.id}, 'live', 'sui', ${coin}, ${index}, ${address}, ${amountDue})`;
  await applyPaymentMessage(
    { sql: h.db.sql, topology: h.bus.topology, log: h.log, publicBaseUrl: "https://pay.example" },
    state.id,
    { type: "wallet_assigned", chain: "sui", coin, address, amountDue },
  );
  return { id: state.id, address, amountDue };
}

/** A customer's wallet: SUI for its own gas, and the given stablecoin amounts (base units). */
export async function customer(h: SuiHarness, coins: Partial<Record<"USDC" | "USDT", bigint>> = {}) {
  const keypair = new Ed25519Keypair();
  const owner = keypair.toSuiAddress();
  await h.net.fund(owner, "SUI", 100_000_000n);
  for (const [coin, amount] of Object.entries(coins)) {
    if (amount) await h.net.fund(owner, coin as "USDC" | "USDT", amount);
  }
  return keypair;
}

/** A customer's transfer as a wallet sends it: merge its coins of the type, split the amount, transfer. */
export async function pay(
  h: SuiHarness,
  from: Ed25519Keypair,
  to: string,
  coin: "USDC" | "USDT",
  amount: bigint,
): Promise<string> {
  const owner = from.toSuiAddress();
  const refs = async (type: string) =>
    (await h.client.listCoins({ owner, coinType: type })).objects.map(({ objectId, version, digest }) => ({
      objectId,
      version,
      digest,
    }));
  const tx = new Transaction();
  tx.setSender(owner);
  tx.setGasPayment(await refs("0x2::sui::SUI"));
  tx.setGasPrice(1000n);
  tx.setGasBudget(5_000_000n);
  const [first, ...rest] = (await refs(h.net.coinType(coin))).map((ref) => tx.object(Inputs.ObjectRef(ref)));
  if (!first) throw new Error(`${owner} has no ${coin}`);
  if (rest.length > 0) tx.mergeCoins(first, rest);
  const [part] = tx.splitCoins(first, [tx.pure.u64(amount)]);
  tx.transferObjects([part!], tx.pure.address(to));
  const bytes = await tx.build();
  const { signature } = await from.signTransaction(bytes);
  const result = await h.client.executeTransaction({ transaction: bytes, signatures: [signature] });
  if (!result.Transaction) throw new Error("payment failed");
  return result.Transaction.digest;
}

export async function balance(h: SuiHarness, owner: string, coin: SuiCoin): Promise<bigint> {
  return BigInt((await h.client.getBalance({ owner, coinType: h.net.coinType(coin) })).balance.balance);
}

export async function statusOf(h: SuiHarness, id: string): Promise<string | undefined> {
  return (await h.db.sql<{ status: string }[]>`select status from payments where id = ${id}`)[0]?.status;
}

export async function eventsOf(h: SuiHarness, id: string): Promise<string[]> {
  return (
    await h.db.sql<{ type: string }[]>`select type from events where payment_id = ${id} order by seq`
  ).map((e) => e.type);
}
