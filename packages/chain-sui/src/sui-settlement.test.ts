import { randomUUID } from "node:crypto";
import { createAuditHeadStore, createSql } from "@gateway/db";
import { createLogger } from "@gateway/logging";
import { SignerRefusedError, signPayoutApproval, withAuditHeadCheck } from "@gateway/signer-client";
import { startTestSigner, type TestSigner } from "@gateway/signer-harness";
import { createSuiLocalnet, type SuiLocalnet } from "@gateway/sui-localnet";
import { createTestDatabase, type TestDatabase } from "@gateway/testkit";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RetryRefusedError, retryFailedIntent } from "./failed-intent-retry.js";
import { createSuiSettlement } from "./sui-settlement.js";

const log = createLogger({ name: "chain-sui-test", level: "silent" });
let db: TestDatabase;
let net: SuiLocalnet;
let signer: TestSigner;
let client: SuiGrpcClient;
let vault: string;
let gas: string;
let settlement: ReturnType<typeof createSuiSettlement>;
let nextIndex = 1000;

beforeAll(async () => {
  [db, net, signer] = await Promise.all([
    createTestDatabase(),
    createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 }),
    startTestSigner(),
  ]);
  client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  ({ vault, gas } = (await signer.client.getServiceAddresses()).sui.live);
  for (let i = 0; i < 4; i++) await net.fund(gas, "SUI", 1_000_000_000n);
  settlement = settlementWith(client);
});
afterAll(async () => {
  await signer?.close();
  await net?.close();
  await db?.drop();
});

const balance = async (owner: string, coin = "USDC") =>
  BigInt((await client.getBalance({ owner, coinType: net.coinType(coin as "USDC") })).balance.balance);

async function deposit() {
  const index = nextIndex++;
  const address = await signer.client.deriveDepositAddress({ chain: "sui", mode: "live", index });
  return { index, address };
}

/** A client whose listings (by owner) and object and transaction reads are counted. */
function countingClient() {
  const counted = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  const listed: string[] = [];
  let objects = 0;
  let transactions = 0;
  const list = counted.stateService.listOwnedObjects.bind(counted.stateService);
  counted.stateService.listOwnedObjects = (input, options) => {
    listed.push(input.owner ?? "");
    return list(input, options);
  };
  const getObjects = counted.ledgerService.batchGetObjects.bind(counted.ledgerService);
  counted.ledgerService.batchGetObjects = (input, options) => {
    objects++;
    return getObjects(input, options);
  };
  const getTransaction = counted.ledgerService.getTransaction.bind(counted.ledgerService);
  counted.ledgerService.getTransaction = (input, options) => {
    transactions++;
    return getTransaction(input, options);
  };
  return { client: counted, listed, reads: () => ({ objects, transactions }) };
}

/** The test signer with its sign calls counted. */
function countingSigner() {
  let signs = 0;
  const counting = new Proxy(signer.client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "sign") return typeof value === "function" ? value.bind(target) : value;
      return (...args: Parameters<typeof target.sign>) => {
        signs++;
        return target.sign(...args);
      };
    },
  });
  return { signer: counting, signs: () => signs };
}

/** A settlement of its own (what it knows of the gas wallet is its own), as a second replica. */
function settlementWith(suiClient: SuiGrpcClient, signerClient: typeof signer.client = signer.client) {
  return createSuiSettlement({
    sql: db.sql,
    client: suiClient,
    signer: signerClient,
    log,
    coinTypes: { SUI: "0x2::sui::SUI", USDC: net.coinType("USDC"), USDT: net.coinType("USDT") },
    approver: { keyId: signer.approvers.settlement.keyId, key: signer.approvers.settlement.key },
  });
}

const sweepWork = (address: string, index: number, amount: bigint) => ({
  intentId: `sweep:${randomUUID()}`,
  paymentId: randomUUID(),
  mode: "live" as const,
  chain: "sui" as const,
  coin: "USDC" as const,
  depositAddress: address,
  derivationIndex: index,
  amount,
});

describe("sui settlement", () => {
  it("sweeps a deposit of two coins to the vault with gas paid by the gas wallet, once per intent", async () => {
    const { index, address } = await deposit();
    await net.fund(address, "USDC", 7_000_000n);
    await net.fund(address, "USDC", 5_500_000n);
    const [vaultBefore, gasBefore] = [await balance(vault), await balance(gas, "SUI")];
    const work = sweepWork(address, index, 12_500_000n);
    const [first, concurrent] = await Promise.all([settlement.sweep(work), settlement.sweep(work)]);
    expect(concurrent.txid).toBe(first.txid);
    expect(await balance(address)).toBe(0n);
    expect(await balance(vault)).toBe(vaultBefore + 12_500_000n);
    expect(await balance(gas, "SUI")).toBe(gasBefore - 1_000_000n);
    expect(await balance(address, "SUI")).toBe(0n);

    // Lost the record of completion (a crash after sending): the chain is asked, nothing is resent.
    await db.sql`delete from sui_intents_done where intent_id = ${work.intentId}`;
    expect((await settlement.sweep(work)).txid).toBe(first.txid);
    expect(await balance(vault)).toBe(vaultBefore + 12_500_000n);

    // Lost every record of it (a database restore): the deposit is empty, so nothing can be
    // built; the signer hands back the transaction it bound, and that is the answer.
    await db.sql`delete from sui_intents_done where intent_id = ${work.intentId}`;
    await db.sql`delete from sui_intent_attempts where intent_id = ${work.intentId}`;
    expect((await settlement.sweep(work)).txid).toBe(first.txid);
    expect(await balance(vault)).toBe(vaultBefore + 12_500_000n);
  });

  it("runs many more sweeps at once than gas coins and connections, each signed once", async () => {
    // Four times as many sweeps at once as the gas wallet has coins, on a pool of two
    // connections with the signer wrapped as settlement wraps it (its audit head is read and
    // recorded through the same pool): each sweep must take a free coin the moment it picks it
    // (not find it taken when the signer refuses the second use), and no sweep may hold a
    // connection while it waits for what another needs a connection to release.
    const { signer: counting, signs } = countingSigner();
    const twoConnections = createSql({ url: db.url, max: 2 });
    const sideBySide = createSuiSettlement({
      sql: twoConnections,
      client,
      signer: withAuditHeadCheck(counting, createAuditHeadStore(twoConnections, "settlement"), {
        everyMs: 0,
      }),
      decidingAtOnce: 1,
      log,
      coinTypes: { SUI: "0x2::sui::SUI", USDC: net.coinType("USDC"), USDT: net.coinType("USDT") },
      approver: { keyId: signer.approvers.settlement.keyId, key: signer.approvers.settlement.key },
    });
    const gasCoins = (await client.listCoins({ owner: gas, coinType: "0x2::sui::SUI" })).objects.length;
    expect(gasCoins).toBeGreaterThanOrEqual(4);
    const sweeps = await Promise.all(
      Array.from({ length: gasCoins * 4 }, async () => {
        const { index, address } = await deposit();
        await net.fund(address, "USDC", 1_000_000n);
        return { address, index };
      }),
    );
    const vaultBefore = await balance(vault);
    const results = await Promise.all(
      sweeps.map(({ address, index }) => sideBySide.sweep(sweepWork(address, index, 1_000_000n))),
    );
    await twoConnections.end();
    expect(new Set(results.map((r) => r.txid)).size).toBe(sweeps.length);
    expect(signs()).toBe(sweeps.length);
    expect(await balance(vault)).toBe(vaultBefore + BigInt(sweeps.length) * 1_000_000n);
  });

  it("lists the gas wallet once for a run of sweeps and reads no coin twice", async () => {
    // The gas coin's next version comes from each execution's effects, and the source coins'
    // BCS with their listing: a sweep lists its deposit, signs and executes, nothing more.
    const { client: counted, listed, reads } = countingClient();
    const own = settlementWith(counted);
    const gasBefore = await balance(gas, "SUI");
    for (let i = 0; i < 3; i++) {
      const { index, address } = await deposit();
      await net.fund(address, "USDC", 2_000_000n);
      await own.sweep(sweepWork(address, index, 2_000_000n));
      expect(await balance(address)).toBe(0n);
    }
    expect(listed.filter((owner) => owner === gas)).toHaveLength(1);
    expect(listed.filter((owner) => owner !== gas)).toHaveLength(3);
    expect(reads()).toEqual({ objects: 0, transactions: 0 });
    expect(await balance(gas, "SUI")).toBe(gasBefore - 3_000_000n);
  });

  it("reads the gas wallet again when another replica has spent the coins it knew", async () => {
    const { client: countedA, listed } = countingClient();
    const { signer: signerA, signs } = countingSigner();
    const replicaA = settlementWith(countedA, signerA);
    const replicaB = settlementWith(client);
    const sweepOnce = async (replica: typeof settlement) => {
      const { index, address } = await deposit();
      await net.fund(address, "USDC", 1_000_000n);
      await replica.sweep(sweepWork(address, index, 1_000_000n));
      expect(await balance(address)).toBe(0n);
    };
    await sweepOnce(replicaA);
    // B goes round the whole wallet: every coin A knows is now at a later version.
    const gasCoins = (await client.listCoins({ owner: gas, coinType: "0x2::sui::SUI" })).objects.length;
    for (let i = 0; i < gasCoins; i++) await sweepOnce(replicaB);
    const vaultBefore = await balance(vault);
    await sweepOnce(replicaA);
    expect(await balance(vault)).toBe(vaultBefore + 1_000_000n);
    expect(listed.filter((owner) => owner === gas)).toHaveLength(2);
    // One attempt on a coin it knew at an old version, refused; the wallet read again; one more.
    expect(signs()).toBeLessThanOrEqual(3);
  });

  it("rebuilds when a stored attempt's inputs moved on, and refunds from a deposit through the vault", async () => {
    const { index, address } = await deposit();
    const grant = await net.fund(address, "USDC", 3_000_000n);
    const customer = new Ed25519Keypair().toSuiAddress();
    const refundId = `${randomUUID()}:sui:x:0:underpayment`;
    // An attempt that can never execute: its coin is at an older version than the chain's.
    await db.sql`insert into sui_intent_attempts (intent_id, attempt, digest, tx_bytes, signatures, inputs)
      values (${`sweep:${refundId}`}, 1, 'NeverSent1111111111111111111111111111111111', '\\x00', '{}',
              ${db.sql.json([{ objectId: grant.coin.objectId, version: "1" }])})`;
    const vaultBefore = await balance(vault);
    const { txid } = await settlement.refund({
      intentId: `refund:${refundId}`,
      refundId,
      paymentId: randomUUID(),
      mode: "live",
      chain: "sui",
      coin: "USDC",
      amount: 3_000_000n,
      to: customer,
      from: "deposit",
      depositAddress: address,
      derivationIndex: index,
      attestation: signer.attest({
        chain: "sui",
        mode: "live",
        asset: normalizeStructTag(net.coinType("USDC")),
        transferId: `sui:${refundId}:0`,
        depositAddress: address,
        sender: customer,
        amount: 3_000_000n,
      }),
    });
    expect(txid).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(await balance(customer)).toBe(3_000_000n);
    expect(await balance(address)).toBe(0n);
    expect(await balance(vault)).toBe(vaultBefore);
  });

  it("refunds a surplus from the vault with the settlement approval", async () => {
    const { address } = await deposit();
    await net.fund(vault, "USDC", 2_000_000n);
    const customer = new Ed25519Keypair().toSuiAddress();
    const refundId = `${randomUUID()}:sui:y:0:overpayment`;
    const work = {
      intentId: `refund:${refundId}`,
      refundId,
      paymentId: randomUUID(),
      mode: "live" as const,
      chain: "sui" as const,
      coin: "USDC" as const,
      amount: 1_250_000n,
      to: customer,
      from: "vault" as const,
      depositAddress: address,
      derivationIndex: 0,
      // The transfer it returns part of, as the watcher attested it.
      attestation: signer.attest({
        chain: "sui",
        mode: "live",
        asset: normalizeStructTag(net.coinType("USDC")),
        transferId: `sui:${refundId}:0`,
        depositAddress: address,
        sender: customer,
        amount: 3_000_000n,
      }),
    };
    const first = await settlement.refund(work);
    expect((await settlement.refund(work)).txid).toBe(first.txid);
    expect(await balance(customer)).toBe(1_250_000n);
  });
});

/** A refund from the vault of a transfer the watcher attested at `transferAmount`. */
function vaultRefund(customer: string, amount: bigint, transferAmount = amount) {
  const refundId = `${randomUUID()}:sui:r:0:late`;
  return {
    intentId: `refund:${refundId}`,
    refundId,
    paymentId: randomUUID(),
    mode: "live" as const,
    chain: "sui" as const,
    coin: "USDC" as const,
    amount,
    to: customer,
    from: "vault" as const,
    depositAddress: normalizeSuiAddress("0x1"),
    derivationIndex: 0,
    attestation: signer.attest({
      chain: "sui",
      mode: "live",
      asset: normalizeStructTag(net.coinType("USDC")),
      transferId: `sui:${refundId}:0`,
      depositAddress: normalizeSuiAddress("0x1"),
      sender: customer,
      amount: transferAmount,
    }),
  };
}

describe("the operator's retry of a refund that failed on chain", () => {
  const operator = () => ({
    sql: db.sql,
    client,
    attestor: signer.approvers.watcher,
    requestedBy: "test-operator",
  });
  const attempts = async (intentId: string) =>
    db.sql<{ attempt: number; digest: string }[]>`
      select attempt, digest from sui_intent_attempts where intent_id = ${intentId} order by attempt`;

  it("a refund that failed on chain is retried by the operator with the watcher's attestation, once", async () => {
    await net.fund(vault, "USDC", 4_000_000n);
    const customer = new Ed25519Keypair().toSuiAddress();
    const work = vaultRefund(customer, 4_000_000n);
    // The coin's issuer denies the customer: the refund executes and fails, moving nothing.
    net.deny(customer, "USDC");
    await expect(settlement.refund(work)).rejects.toThrow(/failed on chain/);
    const [first] = await attempts(work.intentId);
    expect((await client.getTransaction({ digest: first!.digest })).FailedTransaction).toBeDefined();
    net.deny(customer, "USDC", false);

    // Settlement's own new attempt is refused: the failed refund used up the attested amount.
    const refused = await settlement.refund(work).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SignerRefusedError);
    expect((refused as SignerRefusedError).refusal.code).toBe("OVER_ATTESTED");
    expect(await balance(customer)).toBe(0n);

    const retry = await retryFailedIntent(operator(), work.intentId, "live");
    expect(retry).toEqual({ attempt: 2, replaces: work.intentId, txid: first!.digest });
    await expect(retryFailedIntent(operator(), work.intentId, "live")).rejects.toThrow(
      /attempt 2 was retried already/,
    );
    const { txid } = await settlement.refund(work);
    expect(txid).not.toBe(first!.digest);
    expect(await balance(customer)).toBe(4_000_000n);
    expect((await attempts(work.intentId)).map((a) => a.attempt)).toEqual([1, 2]);
    // Final now: nothing more to retry, and asking again sends nothing more.
    await expect(retryFailedIntent(operator(), work.intentId, "live")).rejects.toThrow(/final on chain/);
    expect((await settlement.refund(work)).txid).toBe(txid);
    expect(await balance(customer)).toBe(4_000_000n);
  });

  it("refuses a transaction that did not fail on chain", async () => {
    await expect(retryFailedIntent(operator(), "refund:never-signed", "live")).rejects.toThrow(
      /no signed transaction/,
    );
    await net.fund(vault, "USDC", 1_000_000n);
    const work = vaultRefund(new Ed25519Keypair().toSuiAddress(), 1_000_000n);
    await settlement.refund(work);
    const final = retryFailedIntent(operator(), work.intentId, "live");
    await expect(final).rejects.toThrow(RetryRefusedError);
    await expect(final).rejects.toThrow(/final on chain/);
    // Without the record that it is final, the chain still says it succeeded.
    await db.sql`delete from sui_intents_done where intent_id = ${work.intentId}`;
    await expect(retryFailedIntent(operator(), work.intentId, "live")).rejects.toThrow(/it succeeded/);
  });

  it("takes an unknown transaction for dead only once an input it spends has moved on", async () => {
    const grant = await net.fund(new Ed25519Keypair().toSuiAddress(), "USDC", 1_000_000n);
    const stored = async (intentId: string, digest: string, version: string) => {
      await db.sql`insert into sui_intent_attempts (intent_id, attempt, digest, tx_bytes, signatures, inputs)
        values (${intentId}, 1, ${digest}, '\\x00', '{}',
                ${db.sql.json([{ objectId: grant.coin.objectId, version }])})`;
    };
    // Its input is where it was: the same bytes may still be sent, so its absence proves nothing.
    const pending = `refund:${randomUUID()}`;
    await stored(pending, "NeverSent2222222222222222222222222222222222", grant.coin.version);
    await expect(retryFailedIntent(operator(), pending, "live")).rejects.toThrow(/may yet execute/);
    // Its input is at a later version than the one it spends: it can never execute.
    const dead = `refund:${randomUUID()}`;
    await stored(dead, "NeverSent3333333333333333333333333333333333", "1");
    expect(await retryFailedIntent(operator(), dead, "live")).toEqual({
      attempt: 2,
      replaces: dead,
      txid: "NeverSent3333333333333333333333333333333333",
    });
  });
});

describe("sui payouts", () => {
  it("pays a merchant from the vault with the API's approval, once per intent", async () => {
    await net.fund(vault, "USDC", 5_000_000n);
    const merchantWallet = new Ed25519Keypair().toSuiAddress();
    const payoutId = `po_${randomUUID()}`;
    const coinType = net.coinType("USDC");
    const approval = signPayoutApproval(
      {
        payoutId,
        chain: "sui",
        mode: "live",
        asset: coinType,
        netAmount: 3_000_000n,
        destination: merchantWallet,
      },
      signer.approvers.api,
    );
    const work = {
      intentId: `payout:${payoutId}`,
      payoutId,
      mode: "live" as const,
      coin: "USDC" as const,
      amount: 3_000_000n,
      destination: merchantWallet,
      approval: { keyId: approval.key_id, signature: Buffer.from(approval.signature, "base64") },
    };
    const first = await settlement.payout(work);
    expect((await settlement.payout(work)).txid).toBe(first.txid);
    expect(await balance(merchantWallet)).toBe(3_000_000n);
  });

  it("is refused by the signer without a trusted approval", async () => {
    const merchantWallet = new Ed25519Keypair().toSuiAddress();
    const payoutId = `po_${randomUUID()}`;
    const work = {
      intentId: `payout:${payoutId}`,
      payoutId,
      mode: "live" as const,
      coin: "USDC" as const,
      amount: 1_000_000n,
      destination: merchantWallet,
      approval: { keyId: signer.approvers.api.keyId, signature: new Uint8Array(64) },
    };
    await expect(settlement.payout(work)).rejects.toThrow(/refused|approval/i);
    expect(await balance(merchantWallet)).toBe(0n);
  });
});
