// The live Solana flow in one process, on real infrastructure: the local Solana network, the
// real signer over mTLS, PostgreSQL, NATS JetStream, settlement with the Solana chain
// settlement, and the watcher fed by the network's provider webhooks.
import { randomUUID } from "node:crypto";
import { type Bus, connectBus } from "@gateway/bus";
import { createSolanaSettlement } from "@gateway/chain-solana";
import { createHeliusRegistry, type SolanaWatcher, startSolanaWatcher } from "@gateway/chain-solana/watcher";
import { newId } from "@gateway/db";
import { computeFee, initialPaymentState, STATIC_TEST_PRICES, toCoinUnits } from "@gateway/domain";
import { freePort } from "@gateway/local-infra";
import { createLogger } from "@gateway/logging";
import { applyPaymentMessage, insertPayment } from "@gateway/payments";
import { type Settlement, startSettlement } from "@gateway/settlement";
import type { ServiceWallets } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createTestBus, createTestDatabase, type TestBus, type TestDatabase } from "@gateway/testkit";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, type Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";

export const AUTH_HEADER = "Bearer local-webhook-secret-0123456789";

export interface SolanaHarness {
  net: SolanaLocalnet;
  db: TestDatabase;
  testBus: TestBus;
  bus: Bus;
  signer: TestSigner;
  connection: Connection;
  wallets: ServiceWallets;
  watcher: SolanaWatcher;
  settlement: Settlement;
  merchantId: string;
  webhookUrl: string;
  close(): Promise<void>;
}

export async function startSolanaHarness(
  options: { reconcileCallsPerSecond?: number; slotMs?: number } = {},
): Promise<SolanaHarness> {
  const log = createLogger({ name: "solana-e2e", level: process.env["E2E_LOG_LEVEL"] ?? "silent" });
  const net = await createSolanaLocalnet({
    rpcPort: 0,
    wsPort: 0,
    slotMs: options.slotMs ?? 20,
    finalitySlots: 4,
    webhookRetries: 0,
  });
  const db = await createTestDatabase();
  const testBus: TestBus = await createTestBus();
  const bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "solana-e2e", log });
  const signer = await startTestSigner();
  const connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
  const wallets = (await signer.client.getServiceAddresses()).solana.live;
  // The gas wallet pays every fee and rent; the vault's token accounts exist from setup.
  net.fund(wallets.gas, "SOL", "100");
  net.fund(wallets.vault, "USDC", "0.000001");
  net.fund(wallets.vault, "USDT", "0.000001");

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
      solana: createSolanaSettlement({
        sql: db.sql,
        connection,
        signer: signer.client,
        approver: signer.approvers.settlement,
        mints: net.mints,
        log,
        pollMs: 50,
      }),
    },
  });
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhooks/solana`;
  const watcher = await startSolanaWatcher({
    sql: db.sql,
    bus,
    log,
    connection,
    mints: net.mints,
    replicaId: "watcher-1",
    ingress: { host: "127.0.0.1", port, authHeader: AUTH_HEADER },
    registry: createHeliusRegistry({ baseUrl: net.rpcUrl, webhookUrl, authHeader: AUTH_HEADER }),
    reconcileCallsPerSecond: options.reconcileCallsPerSecond ?? 20,
    pollMs: 50,
    openRefreshMs: 100,
    heartbeatMs: 500,
    giveUpMs: 3000,
    attestor: signer.approvers.watcher,
  });
  return {
    net,
    db,
    testBus,
    bus,
    signer,
    connection,
    wallets,
    watcher,
    settlement,
    merchantId,
    webhookUrl,
    async close() {
      await watcher.stop();
      await settlement.stop();
      await bus.close();
      await signer.close();
      await net.close();
      await testBus.cleanup();
      await db.drop();
    },
  };
}

export interface LivePayment {
  id: string;
  address: string;
  amountDue: bigint;
}

/** A live USD payment with a Solana deposit wallet, as the API's generate-wallet makes it. */
export async function createLivePayment(
  h: Pick<SolanaHarness, "db" | "bus" | "signer" | "merchantId">,
  options: { amountCents?: bigint; coin?: "USDC" | "USDT"; expiresInMs?: number } = {},
): Promise<LivePayment> {
  const log = createLogger({ name: "solana-e2e", level: "silent" });
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
  const [next] = await h.db.sql<{ index: bigint }[]>`select nextval('deposit_index_solana_live') as index`;
  const index = next!.index;
  const address = await h.signer.client.deriveDepositAddress({
    chain: "solana",
    mode: "live",
    index: Number(index),
  });
  const amountDue = toCoinUnits(amount, "USD", coin);
  await h.db.sql`
    insert into deposit_wallets (id, payment_id, mode, chain, coin, derivation_index, address, amount_due)
    values (${newId("dw")}, ${state.id}, 'live', 'solana', ${coin}, ${index}, ${address}, ${amountDue})`;
  await applyPaymentMessage(
    { sql: h.db.sql, topology: h.bus.topology, log, publicBaseUrl: "https://pay.example" },
    state.id,
    { type: "wallet_assigned", chain: "solana", coin, address, amountDue },
  );
  return { id: state.id, address, amountDue };
}

/** A customer's transfer, as a wallet sends it: create the recipient's token account if needed, transferChecked. */
export async function payToken(
  h: Pick<SolanaHarness, "net" | "connection">,
  from: Keypair,
  to: string,
  coin: "USDC" | "USDT",
  amount: bigint,
): Promise<string> {
  const mint = new PublicKey(h.net.mints[coin]);
  const owner = new PublicKey(to);
  const source = getAssociatedTokenAddressSync(mint, from.publicKey);
  const destination = getAssociatedTokenAddressSync(mint, owner, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(from.publicKey, destination, owner, mint),
    createTransferCheckedInstruction(source, mint, destination, from.publicKey, amount, 6),
  );
  const { blockhash } = await h.connection.getLatestBlockhash("confirmed");
  tx.recentBlockhash = blockhash;
  tx.feePayer = from.publicKey;
  tx.sign(from);
  return h.connection.sendRawTransaction(tx.serialize());
}

export async function paySol(h: SolanaHarness, from: Keypair, to: string, lamports: bigint): Promise<string> {
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: new PublicKey(to), lamports }),
  );
  const { blockhash } = await h.connection.getLatestBlockhash("confirmed");
  tx.recentBlockhash = blockhash;
  tx.feePayer = from.publicKey;
  tx.sign(from);
  return h.connection.sendRawTransaction(tx.serialize());
}

export async function tokenBalance(
  h: Pick<SolanaHarness, "net" | "connection">,
  owner: string,
  coin: "USDC" | "USDT",
): Promise<bigint> {
  const account = getAssociatedTokenAddressSync(new PublicKey(h.net.mints[coin]), new PublicKey(owner), true);
  const info = await h.connection.getTokenAccountBalance(account, "confirmed").catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
}

export async function statusOf(h: Pick<SolanaHarness, "db">, id: string): Promise<string | undefined> {
  return (await h.db.sql<{ status: string }[]>`select status from payments where id = ${id}`)[0]?.status;
}

export async function eventsOf(h: Pick<SolanaHarness, "db">, id: string): Promise<string[]> {
  return (
    await h.db.sql<{ type: string }[]>`select type from events where payment_id = ${id} order by seq`
  ).map((e) => e.type);
}

/** Resolves once the provider reports transfers to `address` (the watcher registered it). */
export async function registered(
  h: Pick<SolanaHarness, "net" | "webhookUrl">,
  address: string,
): Promise<boolean> {
  return h.net.webhooks
    .list()
    .some((w) => w.webhookURL === h.webhookUrl && w.accountAddresses.includes(address));
}
