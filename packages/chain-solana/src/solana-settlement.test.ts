import { associatedTokenAddress, buildSolanaSweep, solanaWireTransaction } from "@gateway/chain-tx";
import { createLogger } from "@gateway/logging";
import { type ServiceWallets, SignerRefusedError } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { Connection, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetryRefusedError, retryFailedIntent } from "./failed-intent-retry.js";
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

  it("a refund that failed on chain is retried by the operator with the watcher's attestation, once", async () => {
    const customer = await signer.client.deriveDepositAddress({ chain: "solana", mode: "test", index: 997 });
    const refundId = "ref_failed";
    // More than the vault holds: attempt 1's simulation fails, so it waits unsent.
    const amount = (await balance(wallets.vault)) + 2_000_000n;
    const work = {
      intentId: `refund:${refundId}`,
      refundId,
      paymentId: "00000000-0000-4000-8000-000000000003",
      mode: "live" as const,
      chain: "solana" as const,
      coin: "USDC" as const,
      amount,
      to: customer,
      from: "vault" as const,
      depositAddress: "11111111111111111111111111111111",
      derivationIndex: 0,
      attestation: signer.attest({
        chain: "solana",
        mode: "live",
        asset: net.mints.USDC,
        transferId: "solana:failed:0",
        depositAddress: "11111111111111111111111111111111",
        sender: customer,
        amount,
      }),
    };
    const impatient = createSolanaSettlement({
      sql: db.sql,
      connection,
      signer: signer.client,
      approver: signer.approvers.settlement,
      mints: net.mints,
      log,
      pollMs: 20,
      attemptTimeoutMs: 1_500,
    });
    await expect(impatient.refund(work)).rejects.toThrow(/not final in time/);
    const journal = createIntentJournal(db.sql, "solana");
    const first = await journal.read(work.intentId);
    // Sent without preflight it lands and fails at execution: nothing moves, its nonce moves on.
    await connection.sendRawTransaction(first.wire!, { skipPreflight: true });
    net.advanceSlots(5);
    const operator = {
      sql: db.sql,
      connection: new Connection(net.rpcUrl, "finalized"),
      attestor: signer.approvers.watcher,
      requestedBy: "test-operator",
    };
    net.fund(wallets.vault, "USDC", (Number(amount) / 1e6).toFixed(6));

    // Settlement's own new attempt is refused: the failed refund used up the attested amount.
    const refused = await settlement.refund(work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignerRefusedError);
    expect((refused as SignerRefusedError).refusal.code).toBe("OVER_ATTESTED");
    expect(await balance(customer)).toBe(0n);

    const retry = await retryFailedIntent(operator, work.intentId, "live");
    expect(retry).toEqual({ attempt: 2, replaces: work.intentId, txid: first.signature });
    await expect(retryFailedIntent(operator, work.intentId, "live")).rejects.toThrow(RetryRefusedError);
    const { txid } = await settlement.refund(work);
    expect(txid).not.toBe(first.signature);
    expect(await balance(customer)).toBe(amount);
    // Final now: nothing more to retry, and asking again sends nothing more.
    await expect(retryFailedIntent(operator, work.intentId, "live")).rejects.toThrow(/final on chain/);
    expect((await settlement.refund(work)).txid).toBe(txid);
    expect(await balance(customer)).toBe(amount);
  });

  it("the operator's retry refuses a transaction that did not fail on chain", async () => {
    const operator = {
      sql: db.sql,
      connection: new Connection(net.rpcUrl, "finalized"),
      attestor: signer.approvers.watcher,
      requestedBy: "test-operator",
    };
    await expect(retryFailedIntent(operator, "refund:never-signed", "live")).rejects.toThrow(
      /no signed transaction/,
    );
    // ref_restore's refund landed: final, never retried.
    await expect(retryFailedIntent(operator, "refund:ref_restore", "live")).rejects.toThrow(/final on chain/);
  });
});
