import { randomBytes, randomUUID } from "node:crypto";
import { type Bus, connectBus, createOutboxRelay, type OutboxRelay } from "@gateway/bus";
import { createSolanaSettlement, solanaPayoutIntent } from "@gateway/chain-solana";
import { associatedTokenAddress } from "@gateway/chain-tx";
import { newId } from "@gateway/db";
import { checkLedger, creditPayment, merchantBalances } from "@gateway/ledger";
import { createLogger } from "@gateway/logging";
import {
  createPayout,
  MANUAL_PAYOUT_NETWORK_FEE,
  type PayoutRow,
  payoutSubjects,
  setPayoutSchedule,
} from "@gateway/payouts";
import { signApproval } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import {
  createTestBus,
  createTestDatabase,
  type TestBus,
  type TestDatabase,
  waitFor,
} from "@gateway/testkit";
import { Connection, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PayoutActor, startPayouts } from "../payouts.js";
import { createChainPayout } from "./chain-payout.js";

const log = createLogger({ name: "solana-payout-test", level: "silent" });
let net: SolanaLocalnet;
let db: TestDatabase;
let testBus: TestBus;
let bus: Bus;
let relay: OutboxRelay;
let signer: TestSigner;
let connection: Connection;
let actor: PayoutActor;
let vault: string;

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 10, finalitySlots: 3 });
  db = await createTestDatabase();
  testBus = await createTestBus();
  bus = await connectBus({ url: testBus.natsUrl, prefix: testBus.prefix, name: "test", log });
  relay = createOutboxRelay({ sql: db.sql, js: bus.js, topology: bus.topology, log, pollMs: 50 });
  await relay.start();
  // The payout policy as production runs it: allow-listed destinations, expiring approvals.
  signer = await startTestSigner({ payoutPolicy: true });
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
  const wallets = (await signer.client.getServiceAddresses()).solana.live;
  vault = wallets.vault;
  net.fund(wallets.gas, "SOL", "10");
  net.fund(vault, "USDC", "100");
  const solana = createChainPayout(
    "solana",
    createSolanaSettlement({
      sql: db.sql,
      connection,
      signer: signer.client,
      approver: signer.approvers.settlement,
      mints: net.mints,
      log,
      pollMs: 20,
    }),
  );
  actor = await startPayouts({
    sql: db.sql,
    bus,
    log,
    chains: { solana },
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

async function tokenBalance(owner: string): Promise<bigint> {
  const info = await connection
    .getTokenAccountBalance(new PublicKey(associatedTokenAddress(owner, net.mints.USDC)), "confirmed")
    .catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
}

async function merchantWith(net: bigint) {
  const merchantId = newId("mer");
  await db.sql`insert into merchants (id, email, business_name, password_hash)
    values (${merchantId}, ${`${merchantId}@example.test`}, 'Shop', 'x')`;
  await db.sql.begin((tx) =>
    creditPayment(tx, {
      mode: "live",
      chain: "solana",
      coin: "USDC",
      paymentId: randomUUID(),
      merchantId,
      gross: net + 100_000n,
      fee: 100_000n,
      net,
    }),
  );
  return merchantId;
}

/**
 * A payout as the API records it, to an allow-listed destination (unless `allowListed: false`),
 * with the approval the API signs after the code check, expiring in `expiresInMs`.
 */
async function livePayout(
  merchantId: string,
  amount: bigint,
  approver: "api" | "settlement" | null,
  options: { expiresInMs?: number; allowListed?: boolean } = {},
) {
  const id = newId("po");
  const destination = new PublicKey(randomBytes(32)).toBase58();
  if (options.allowListed !== false)
    await signer.allowDestination({
      merchantId,
      chain: "solana",
      mode: "live",
      address: destination,
      linked: false,
    });
  const networkFee = MANUAL_PAYOUT_NETWORK_FEE.solana;
  const intent = solanaPayoutIntent(
    {
      intentId: `payout:${id}`,
      payoutId: id,
      merchantId,
      mode: "live",
      coin: "USDC",
      amount: amount - networkFee,
      destination,
    },
    net.mints,
  );
  const key = approver ? signer.approvers[approver] : null;
  const expiresAtMs = BigInt(Date.now() + (options.expiresInMs ?? 300_000));
  const approval = key ? signApproval({ intent, keyId: key.keyId, privateKey: key.key, expiresAtMs }) : null;
  const row = await db.sql.begin((tx) =>
    createPayout(tx, payoutSubjects(bus.topology), {
      id,
      merchantId,
      mode: "live",
      chain: "solana",
      coin: "USDC",
      amount,
      networkFee,
      destination,
      kind: "manual",
      approval: approval
        ? {
            key_id: approval.keyId,
            signature: Buffer.from(approval.signature).toString("base64"),
            expires_at_ms: expiresAtMs.toString(),
          }
        : null,
    }),
  );
  return row;
}

const payout = (id: string) => db.sql<PayoutRow[]>`select * from payouts where id = ${id}`.then((r) => r[0]!);

async function expectLedgerSound() {
  expect(await checkLedger(db.sql)).toEqual({ total: 0n, crossedTransfers: [], driftedAccounts: [] });
}

describe("Solana payouts on the local network", () => {
  it("pays the destination from the vault (creating its token account), once, matching the ledger", async () => {
    const merchantId = await merchantWith(20_000_000n);
    const vaultBefore = await tokenBalance(vault);
    const row = await livePayout(merchantId, 12_000_000n, "api");
    await waitFor(async () => (await payout(row.id)).status === "completed", { timeoutMs: 30_000 });
    const done = await payout(row.id);
    expect(done.txid).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(await tokenBalance(row.destination)).toBe(11_700_000n);
    expect(vaultBefore - (await tokenBalance(vault))).toBe(11_700_000n);
    const tx = await connection.getTransaction(done.txid!, {
      commitment: "finalized",
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.err).toBeNull();
    // Handling it again returns the recorded transaction and moves nothing.
    await actor.process(row.id);
    expect(await tokenBalance(row.destination)).toBe(11_700_000n);
    expect(await merchantBalances(db.sql, merchantId, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 8_000_000n, pending: 0n },
    ]);
    const [ledgerVault] = await db.sql<{ balance: bigint }[]>`
      select balance from ledger_balances where kind = 'platform_vault' and mode = 'live' and chain = 'solana' and coin = 'USDC'`;
    // The gas wallet's real cost (fee and the new token account's rent) is booked as gas spent.
    const [gas] = await db.sql<{ amount: bigint }[]>`
      select t.amount from ledger_transfers t join ledger_accounts a on a.id = t.debit_account
      where t.reference = ${`gas:payout:${row.id}`} and a.kind = 'platform_gas_spent'`;
    const meta = tx?.meta;
    expect(gas!.amount).toBe(BigInt(meta!.preBalances[0]! - meta!.postBalances[0]!));
    expect(gas!.amount).toBeGreaterThan(2_000_000n); // rent of the destination's token account
    // The ledger's vault moved by what left the real vault.
    expect(ledgerVault!.balance).toBe(20_100_000n - 11_700_000n);
    await expectLedgerSound();
  });

  it("pays the daily scheduled payout to the linked wallet with no network fee", async () => {
    const merchantId = await merchantWith(3_000_000n);
    const wallet = new PublicKey(randomBytes(32)).toBase58();
    await db.sql`insert into payout_wallets (merchant_id, chain, address) values (${merchantId}, 'solana', ${wallet})`;
    // Linking the wallet (after its code) puts it on the signer's allow-list as the linked one.
    await signer.allowDestination({
      merchantId,
      chain: "solana",
      mode: "live",
      address: wallet,
      linked: true,
    });
    await setPayoutSchedule(
      db.sql,
      { merchantId, mode: "live", hour: 4, enabled: true, minimumAmount: 0n },
      new Date("2032-01-01T03:00:00Z"),
    );
    await actor.runSchedulesOnce(new Date("2032-01-01T04:00:01Z"));
    const [row] = await db.sql<PayoutRow[]>`select * from payouts where merchant_id = ${merchantId}`;
    expect(row).toMatchObject({
      kind: "scheduled",
      network_fee: 0n,
      amount: 3_000_000n,
      destination: wallet,
    });
    await waitFor(async () => (await payout(row!.id)).status === "completed", { timeoutMs: 30_000 });
    expect(await tokenBalance(wallet)).toBe(3_000_000n);
    expect((await merchantBalances(db.sql, merchantId, "live"))[0]).toMatchObject({
      available: 0n,
      pending: 0n,
    });
    await expectLedgerSound();
  });

  it("fails and releases a payout the signer refuses: no approval, another key's, expired, not allow-listed", async () => {
    const merchantId = await merchantWith(20_000_000n);
    const refused = [
      // Without an approval only the linked wallet may be paid.
      [await livePayout(merchantId, 4_000_000n, null), /DESTINATION_NOT_ALLOWED/],
      [await livePayout(merchantId, 5_000_000n, "settlement"), /APPROVAL_INVALID/],
      // Approved, but settlement reached the signer after the approval had expired.
      [await livePayout(merchantId, 3_000_000n, "api", { expiresInMs: -1 }), /APPROVAL_EXPIRED/],
      [await livePayout(merchantId, 2_000_000n, "api", { allowListed: false }), /DESTINATION_NOT_ALLOWED/],
    ] as const;
    await waitFor(
      async () => {
        const rows = await Promise.all(refused.map(([row]) => payout(row.id)));
        return rows.every((r) => r.status === "failed");
      },
      { timeoutMs: 30_000 },
    );
    for (const [row, reason] of refused) {
      expect((await payout(row.id)).failure_reason).toMatch(reason);
      expect(await tokenBalance(row.destination)).toBe(0n);
    }
    expect(await merchantBalances(db.sql, merchantId, "live")).toEqual([
      { chain: "solana", coin: "USDC", available: 20_000_000n, pending: 0n },
    ]);
    await expectLedgerSound();
  });
});
