import { associatedTokenAddress, buildSolanaSweep, solanaWireTransaction } from "@gateway/chain-tx";
import { createLogger } from "@gateway/logging";
import type { ServiceWallets } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { Connection, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIntentJournal } from "./intent-journal.js";
import { attemptIntentId } from "./intent-runner.js";
import { createSolanaSettlement, type SolanaSettlement } from "./solana-settlement.js";

const log = createLogger({ name: "chain-solana-test", level: "silent" });
let net: SolanaLocalnet;
let db: TestDatabase;
let signer: TestSigner;
let connection: Connection;
let wallets: ServiceWallets;
let settlement: SolanaSettlement;
let nextIndex = 0;

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 10, finalitySlots: 3 });
  db = await createTestDatabase();
  signer = await startTestSigner();
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
  wallets = (await signer.client.getServiceAddresses()).solana.live;
  net.fund(wallets.gas, "SOL", "10");
  net.fund(wallets.vault, "USDC", "0.000001");
  settlement = createSolanaSettlement({
    sql: db.sql,
    connection,
    signer: signer.client,
    approver: signer.approvers.settlement,
    mints: net.mints,
    log,
    pollMs: 20,
  });
});
afterAll(async () => {
  await signer?.close();
  await net?.close();
  await db?.drop();
});

async function fundedDeposit(amount: string) {
  const index = nextIndex++;
  const address = await signer.client.deriveDepositAddress({ chain: "solana", mode: "live", index });
  net.fund(address, "USDC", amount);
  return { address, index };
}

async function balance(owner: string): Promise<bigint> {
  const info = await connection
    .getTokenAccountBalance(new PublicKey(associatedTokenAddress(owner, net.mints.USDC)), "confirmed")
    .catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
}

const sweepWork = (intentId: string, deposit: { address: string; index: number }, amount: bigint) => ({
  intentId,
  paymentId: "00000000-0000-4000-8000-000000000000",
  mode: "live" as const,
  chain: "solana" as const,
  coin: "USDC" as const,
  depositAddress: deposit.address,
  derivationIndex: deposit.index,
  amount,
});

describe("Solana settlement", () => {
  it("sweeps once per intent: a retry returns the same transaction and moves nothing more", async () => {
    const deposit = await fundedDeposit("3");
    const vaultBefore = await balance(wallets.vault);
    const gasBefore = await connection.getBalance(new PublicKey(wallets.gas));
    const first = await settlement.sweep(sweepWork("sweep:retry", deposit, 3_000_000n));
    const again = await settlement.sweep(sweepWork("sweep:retry", deposit, 3_000_000n));
    expect(again.txid).toBe(first.txid);
    expect((await balance(wallets.vault)) - vaultBefore).toBe(3_000_000n);
    // The deposit token account is closed: its rent went to the gas wallet, which paid the fee.
    expect(
      await connection.getAccountInfo(new PublicKey(associatedTokenAddress(deposit.address, net.mints.USDC))),
    ).toBeNull();
    const tx = await connection.getTransaction(first.txid, {
      commitment: "finalized",
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(wallets.gas);
    expect(await connection.getBalance(new PublicKey(wallets.gas))).toBeGreaterThan(gasBefore);
  });

  it("after its signed transaction expires unlanded, a sweep opens a new attempt under a new signer id", async () => {
    const deposit = await fundedDeposit("2");
    const intentId = "sweep:expired";
    // Attempt 1 was signed and recorded, but never reached the cluster.
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const message = buildSolanaSweep({
      asset: net.mints.USDC,
      depositOwner: deposit.address,
      vault: wallets.vault,
      gasWallet: wallets.gas,
      amount: 2_000_000n,
      decimals: 6,
      recentBlockhash: blockhash,
      closeDepositAccount: true,
    });
    const signed = await signer.client.sign({
      intent: {
        kind: "sweep",
        intentId: attemptIntentId(intentId, 1),
        chain: "solana",
        mode: "live",
        asset: net.mints.USDC,
        amount: 2_000_000n,
        depositIndex: deposit.index,
      },
      unsignedTransaction: message,
    });
    const lost = bs58.encode(signed.signatures[0]!.signature);
    const wire = solanaWireTransaction(message, signed.signatures);
    const journal = createIntentJournal(db.sql, "solana");
    await journal.recordSigned(intentId, {
      attempt: 1,
      message,
      wire,
      signature: lost,
      nonceAccount: null,
      nonceValue: null,
    });
    net.advanceSlots(lastValidBlockHeight - (await connection.getBlockHeight("confirmed")) + 1);

    const { txid } = await settlement.sweep(sweepWork(intentId, deposit, 2_000_000n));
    expect(txid).not.toBe(lost);
    const record = await journal.read(intentId);
    expect(record.attempt).toBe(2);
    expect(record.signatures).toEqual([lost, txid]);
    expect(await balance(deposit.address)).toBe(0n);
    // The lost transaction can no longer land: its blockhash is gone.
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow(/[Bb]lockhash not found/);
    // And the signer will not sign attempt 1 again with a fresh blockhash: it hands back the first.
    const again = await signer.client.sign({
      intent: {
        kind: "sweep",
        intentId: attemptIntentId(intentId, 1),
        chain: "solana",
        mode: "live",
        asset: net.mints.USDC,
        amount: 2_000_000n,
        depositIndex: deposit.index,
      },
      unsignedTransaction: buildSolanaSweep({
        asset: net.mints.USDC,
        depositOwner: deposit.address,
        vault: wallets.vault,
        gasWallet: wallets.gas,
        amount: 2_000_000n,
        decimals: 6,
        recentBlockhash: (await connection.getLatestBlockhash("confirmed")).blockhash,
      }),
    });
    expect(Buffer.from(again.transaction).equals(Buffer.from(message))).toBe(true);
  });

  it("a refund whose record was lost (database restore) sends the transaction bound first, never a second", async () => {
    const customer = await signer.client.deriveDepositAddress({ chain: "solana", mode: "test", index: 998 });
    net.fund(wallets.vault, "USDC", "5");
    const work = {
      intentId: "refund:ref_restore",
      refundId: "ref_restore",
      paymentId: "00000000-0000-4000-8000-000000000002",
      mode: "live" as const,
      chain: "solana" as const,
      coin: "USDC" as const,
      amount: 1_500_000n,
      to: customer,
      from: "vault" as const,
      depositAddress: "11111111111111111111111111111111",
      derivationIndex: 0,
      attestation: signer.attest({
        chain: "solana",
        mode: "live",
        asset: net.mints.USDC,
        transferId: "solana:restore:0",
        depositAddress: "11111111111111111111111111111111",
        sender: customer,
        amount: 1_500_000n,
      }),
    };
    const first = await settlement.refund(work);
    expect(await balance(customer)).toBe(1_500_000n);
    // The database is restored from before the refund: its journal row and nonce lease are gone.
    await db.sql`delete from chain_intents where intent_id = ${work.intentId}`;
    await db.sql`update solana_nonce_accounts set intent_id = null`;
    const again = await settlement.refund(work);
    expect(again.txid).toBe(first.txid);
    expect(await balance(customer)).toBe(1_500_000n);
  });

  it("refunds from the deposit address by collecting to the vault first, with the settlement approval", async () => {
    const deposit = await fundedDeposit("4");
    const customer = await signer.client.deriveDepositAddress({ chain: "solana", mode: "test", index: 999 });
    const { txid } = await settlement.refund({
      intentId: "refund:ref_1",
      refundId: "ref_1",
      paymentId: "00000000-0000-4000-8000-000000000001",
      mode: "live",
      chain: "solana",
      coin: "USDC",
      amount: 4_000_000n,
      to: customer,
      from: "deposit",
      depositAddress: deposit.address,
      derivationIndex: deposit.index,
      attestation: signer.attest({
        chain: "solana",
        mode: "live",
        asset: net.mints.USDC,
        transferId: "solana:ref_1:0",
        depositAddress: deposit.address,
        sender: customer,
        amount: 4_000_000n,
      }),
    });
    expect(await balance(customer)).toBe(4_000_000n);
    expect(await balance(deposit.address)).toBe(0n);
    const journal = createIntentJournal(db.sql, "solana");
    expect((await journal.read("refund:ref_1:collect")).finalTxid).toBeTruthy();
    expect((await journal.read("refund:ref_1")).finalTxid).toBe(txid);
  });
});
