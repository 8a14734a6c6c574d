import { bcs } from "@mysten/sui/bcs";
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { normalizeSuiAddress, toBase58 } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSuiLocalnet, type SuiLocalnet } from "./localnet.js";
import { pay } from "./pay.js";
import { buildPayment, coinRefs, type ObjectRef } from "./payment-builder.js";

let net: SuiLocalnet;
let client: SuiGrpcClient;
let USDC: string;
let SUI: string;
const FEE = 1_000_000n; // reference gas price 1000 × 1000 computation units
const BUDGET = 5_000_000n;

beforeAll(async () => {
  net = await createSuiLocalnet({ port: 0, checkpointIntervalMs: 50 });
  client = new SuiGrpcClient({ network: "localnet", baseUrl: net.url });
  USDC = net.coinType("USDC");
  SUI = net.coinType("SUI");
});
afterAll(async () => {
  await net.close();
});

async function faucet(owner: string, coin: "SUI" | "USDC" | "USDT", amount: string) {
  const res = await fetch(`${net.url}/faucet`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ owner, coin, amount }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { digest: string; object: ObjectRef; amount: string; coinType: string };
}

async function sign(bytes: Uint8Array, ...signers: Ed25519Keypair[]): Promise<string[]> {
  return Promise.all(signers.map(async (signer) => (await signer.signTransaction(bytes)).signature));
}

function rejection(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: Error) => error.message,
  );
}

describe("faucet and balances", () => {
  it("funds an address in a checkpointed transaction and reports balances through SuiGrpcClient", async () => {
    const owner = new Ed25519Keypair().toSuiAddress();
    const grant = await faucet(owner, "USDC", "12.50");
    expect(grant.amount).toBe("12500000");
    await faucet(owner, "SUI", "0.5");

    const usdc = await client.getBalance({ owner, coinType: USDC });
    expect(usdc.balance.balance).toBe("12500000");
    const sui = await client.getBalance({ owner });
    expect(sui.balance.balance).toBe("500000000");
    const { balances } = await client.listBalances({ owner });
    expect(balances.map((b) => [b.coinType, b.balance]).sort()).toEqual(
      [
        [SUI, "500000000"],
        [USDC, "12500000"],
      ].sort(),
    );
    const coins = await client.listCoins({ owner, coinType: USDC });
    expect(coins.objects).toEqual([
      expect.objectContaining({
        objectId: grant.object.objectId,
        balance: "12500000",
        digest: grant.object.digest,
      }),
    ]);

    const tx = await client.waitForTransaction({ digest: grant.digest, include: { balanceChanges: true } });
    expect(tx.Transaction?.balanceChanges).toContainEqual({
      address: owner,
      coinType: USDC,
      amount: "12500000",
    });
    expect(tx.Transaction?.balanceChanges).toContainEqual({
      address: net.faucetAddress,
      coinType: USDC,
      amount: "-12500000",
    });
  });

  it("answers /info, /healthz and refuses bad faucet requests", async () => {
    const info = (await (await fetch(`${net.url}/info`)).json()) as {
      chainId: string;
      coins: Array<{ symbol: string; coinType: string; decimals: number }>;
    };
    expect(info.coins).toEqual([
      { symbol: "SUI", coinType: SUI, decimals: 9 },
      { symbol: "USDC", coinType: USDC, decimals: 6 },
      { symbol: "USDT", coinType: net.coinType("USDT"), decimals: 6 },
    ]);
    expect(info.chainId).toBe((await client.getChainIdentifier()).chainIdentifier);
    expect((await fetch(`${net.url}/healthz`)).status).toBe(200);
    const bad = await fetch(`${net.url}/faucet`, {
      method: "POST",
      body: JSON.stringify({ owner: "0x1", coin: "USDC", amount: "1.0000001" }),
    });
    expect(bad.status).toBe(400);
  });

  it("serves the reference gas price, service info and checkpoints", async () => {
    expect((await client.getReferenceGasPrice()).referenceGasPrice).toBe("1000");
    const { response: info } = await client.ledgerService.getServiceInfo({});
    expect(info.chain).toBe("localnet");
    const { response: latest } = await client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: undefined },
    });
    expect(latest.checkpoint?.sequenceNumber).toBeGreaterThanOrEqual(info.checkpointHeight ?? 0n);
    const { response: genesis } = await client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: 0n },
      readMask: { paths: ["digest", "summary.previous_digest"] },
    });
    expect(genesis.checkpoint?.digest).toBe(info.chainId);
    await expect(
      client.ledgerService.getCheckpoint({
        checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: 10n ** 9n },
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("payments", () => {
  it("executes a user-signed split and transfer of part of a USDC coin, visible in getTransaction and the next checkpoint", async () => {
    const payer = new Ed25519Keypair();
    const merchant = new Ed25519Keypair().toSuiAddress();
    const usdc = await faucet(payer.toSuiAddress(), "USDC", "20");
    const gas = await faucet(payer.toSuiAddress(), "SUI", "1");

    const abort = new AbortController();
    const call = client.subscriptionService.subscribeCheckpoints(
      { readMask: { paths: ["sequence_number", "transactions.digest", "transactions.balance_changes"] } },
      { abort: abort.signal },
    );
    await call.headers;

    const bytes = await buildPayment({
      sender: payer.toSuiAddress(),
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [usdc.object],
      amount: 12_500_000n,
      recipient: merchant,
    });
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { effects: true, balanceChanges: true },
    });
    expect(result.Transaction?.status.success).toBe(true);
    const digest = result.Transaction!.digest;
    expect(digest).toBe(TransactionDataBuilder.getDigestFromBytes(bytes));

    const expected = [
      { address: merchant, coinType: USDC, amount: "12500000" },
      { address: payer.toSuiAddress(), coinType: USDC, amount: "-12500000" },
      { address: payer.toSuiAddress(), coinType: SUI, amount: `-${FEE}` },
    ];
    const fetched = await client.waitForTransaction({
      digest,
      include: { balanceChanges: true, effects: true },
    });
    expect(fetched.Transaction?.balanceChanges).toEqual(expect.arrayContaining(expected));
    expect(fetched.Transaction?.balanceChanges).toHaveLength(3);

    let seen: { sequence: bigint; changes: unknown[] } | undefined;
    for await (const frame of call.responses) {
      const tx = frame.checkpoint?.transactions.find((candidate) => candidate.digest === digest);
      if (tx) {
        seen = { sequence: frame.cursor!, changes: tx.balanceChanges };
        break;
      }
    }
    abort.abort();
    expect(seen?.changes).toEqual(expect.arrayContaining(expected));
    const { response } = await client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: seen!.sequence },
      readMask: { paths: ["transactions.digest"] },
    });
    expect(response.checkpoint?.transactions.map((tx) => tx.digest)).toContain(digest);
    const after = await client.getTransaction({ digest });
    expect(after.Transaction?.checkpoint).toBe(seen!.sequence.toString());

    expect((await client.getBalance({ owner: merchant, coinType: USDC })).balance.balance).toBe("12500000");
    expect((await client.getBalance({ owner: payer.toSuiAddress(), coinType: USDC })).balance.balance).toBe(
      "7500000",
    );
  });

  it("returns the same result when a transaction is submitted twice", async () => {
    const payer = new Ed25519Keypair();
    const gas = await faucet(payer.toSuiAddress(), "SUI", "1");
    const bytes = await buildPayment({
      sender: payer.toSuiAddress(),
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [],
      amount: 1000n,
      recipient: "0x42",
    });
    const signatures = await sign(bytes, payer);
    const first = await client.executeTransaction({ transaction: bytes, signatures });
    const second = await client.executeTransaction({ transaction: bytes, signatures });
    expect(second.Transaction?.digest).toBe(first.Transaction?.digest);
    expect((await client.getBalance({ owner: "0x42" })).balance.balance).toBe("1000");
  });

  it("runs a sponsored transaction with both signatures and rejects a missing or forged sponsor signature", async () => {
    const deposit = new Ed25519Keypair();
    const sponsor = new Ed25519Keypair();
    const vault = new Ed25519Keypair().toSuiAddress();
    const usdc = await faucet(deposit.toSuiAddress(), "USDC", "5");
    const gas = await faucet(sponsor.toSuiAddress(), "SUI", "1");
    const bytes = await buildPayment({
      sender: deposit.toSuiAddress(),
      gasOwner: sponsor.toSuiAddress(),
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [usdc.object],
      amount: 5_000_000n,
      recipient: vault,
    });

    const [senderSig] = await sign(bytes, deposit);
    expect(
      await rejection(client.executeTransaction({ transaction: bytes, signatures: [senderSig!] })),
    ).toMatch(/SignatureMismatch/);
    const [forged] = await sign(bytes, new Ed25519Keypair());
    expect(
      await rejection(client.executeTransaction({ transaction: bytes, signatures: [senderSig!, forged!] })),
    ).toMatch(/SignatureMismatch/);
    const [sponsorSig] = await sign(bytes, sponsor);
    const tampered = Uint8Array.from(Buffer.from(sponsorSig!, "base64"));
    tampered[5] = (tampered[5] ?? 0) ^ 0xff;
    expect(
      await rejection(
        client.executeTransaction({
          transaction: bytes,
          signatures: [senderSig!, Buffer.from(tampered).toString("base64")],
        }),
      ),
    ).toMatch(/InvalidSignature/);

    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: [senderSig!, sponsorSig!],
      include: { balanceChanges: true, effects: true },
    });
    expect(result.Transaction?.status.success).toBe(true);
    expect(result.Transaction?.balanceChanges).toEqual(
      expect.arrayContaining([
        { address: vault, coinType: USDC, amount: "5000000" },
        { address: deposit.toSuiAddress(), coinType: USDC, amount: "-5000000" },
        { address: sponsor.toSuiAddress(), coinType: SUI, amount: `-${FEE}` },
      ]),
    );
    expect(result.Transaction?.effects?.gasObject?.outputOwner).toEqual({
      $kind: "AddressOwner",
      AddressOwner: sponsor.toSuiAddress(),
    });
  });

  it("rejects a stale object version and a coin the sender does not own", async () => {
    const payer = new Ed25519Keypair();
    const usdc = await faucet(payer.toSuiAddress(), "USDC", "3");
    const gas = await faucet(payer.toSuiAddress(), "SUI", "1");
    const pay = (gasRef: ObjectRef, coin: ObjectRef) =>
      buildPayment({
        sender: payer.toSuiAddress(),
        gasPayment: [gasRef],
        gasPrice: 1000n,
        gasBudget: BUDGET,
        coins: [coin],
        amount: 1_000_000n,
        recipient: "0x7",
      });
    const first = await pay(gas.object, usdc.object);
    await client.executeTransaction({ transaction: first, signatures: await sign(first, payer) });

    const [freshGas] = await coinRefs(client, payer.toSuiAddress(), SUI);
    const stale = await pay(freshGas!, usdc.object);
    expect(
      await rejection(
        client.executeTransaction({ transaction: stale, signatures: await sign(stale, payer) }),
      ),
    ).toMatch(/ObjectVersionUnavailableForConsumption/);

    const other = await faucet(new Ed25519Keypair().toSuiAddress(), "USDC", "1");
    const theft = await pay(freshGas!, other.object);
    expect(
      await rejection(
        client.executeTransaction({ transaction: theft, signatures: await sign(theft, payer) }),
      ),
    ).toMatch(/IncorrectUserSignature/);
  });

  it("merges several coins and deletes the merged ones", async () => {
    const payer = new Ed25519Keypair();
    const owner = payer.toSuiAddress();
    for (const amount of ["1", "2", "3.5"]) await faucet(owner, "USDC", amount);
    const gas = await faucet(owner, "SUI", "1");
    const coins = await coinRefs(client, owner, USDC);
    expect(coins).toHaveLength(3);

    const bytes = await buildPayment({
      sender: owner,
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins,
      amount: 6_000_000n,
      recipient: "0x99",
    });
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { effects: true },
    });
    expect(result.Transaction?.status.success).toBe(true);
    const deleted = result.Transaction!.effects!.changedObjects.filter((c) => c.idOperation === "Deleted");
    expect(deleted.map((c) => c.objectId).sort()).toEqual(
      coins
        .slice(1)
        .map((c) => c.objectId)
        .sort(),
    );

    const remaining = await client.listCoins({ owner, coinType: USDC });
    expect(remaining.objects.map((c) => c.balance)).toEqual(["500000"]);
    const gone = await client.getObjects({ objectIds: [coins[1]!.objectId] });
    expect(gone.objects[0]).toBeInstanceOf(Error);
  });

  it("rejects a gas budget that is too low and gas coins that cannot cover the budget", async () => {
    const payer = new Ed25519Keypair();
    const gas = await faucet(payer.toSuiAddress(), "SUI", "0.002");
    const build = (budget: bigint) =>
      buildPayment({
        sender: payer.toSuiAddress(),
        gasPayment: [gas.object],
        gasPrice: 1000n,
        gasBudget: budget,
        coins: [],
        amount: 1n,
        recipient: "0x5",
      });
    const low = await build(FEE - 1n);
    expect(
      await rejection(client.executeTransaction({ transaction: low, signatures: await sign(low, payer) })),
    ).toMatch(/GasBudgetTooLow/);
    const high = await build(3_000_000n);
    expect(
      await rejection(client.executeTransaction({ transaction: high, signatures: await sign(high, payer) })),
    ).toMatch(/GasBalanceTooLow/);
  });

  it("charges gas and reverts the commands when a split exceeds the coin", async () => {
    const payer = new Ed25519Keypair();
    const usdc = await faucet(payer.toSuiAddress(), "USDC", "1");
    const gas = await faucet(payer.toSuiAddress(), "SUI", "1");
    const bytes = await buildPayment({
      sender: payer.toSuiAddress(),
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [usdc.object],
      amount: 2_000_000n,
      recipient: "0x6",
    });
    const simulated = await client.simulateTransaction({ transaction: bytes, include: { effects: true } });
    expect(simulated.FailedTransaction?.status.error?.message).toMatch(/Insufficient coin balance/);

    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { balanceChanges: true },
    });
    expect(result.FailedTransaction?.balanceChanges).toEqual([
      { address: payer.toSuiAddress(), coinType: SUI, amount: `-${FEE}` },
    ]);
    expect((await client.getBalance({ owner: payer.toSuiAddress(), coinType: USDC })).balance.balance).toBe(
      "1000000",
    );
  });

  it("fails a transfer to an address on the coin's deny list and rejects the address spending it", async () => {
    const payer = new Ed25519Keypair();
    const denied = new Ed25519Keypair();
    const usdc = await faucet(payer.toSuiAddress(), "USDC", "2");
    const gas = await faucet(payer.toSuiAddress(), "SUI", "1");
    const own = await faucet(denied.toSuiAddress(), "USDC", "1");
    const ownGas = await faucet(denied.toSuiAddress(), "SUI", "1");
    net.deny(denied.toSuiAddress(), "USDC");
    const bytes = await buildPayment({
      sender: payer.toSuiAddress(),
      gasPayment: [gas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [usdc.object],
      amount: 1_000_000n,
      recipient: denied.toSuiAddress(),
    });
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { effects: true, balanceChanges: true },
    });
    // Executed and failed: the fee is charged, the coins are untouched but at their next version.
    const failed = result.FailedTransaction!;
    expect(failed.status.error?.message).toMatch(/denied for coin type/);
    expect(failed.balanceChanges).toEqual([
      { address: payer.toSuiAddress(), coinType: SUI, amount: `-${FEE}` },
    ]);
    const [coin] = (await client.getObjects({ objectIds: [usdc.object.objectId] })).objects;
    expect(coin).not.toBeInstanceOf(Error);
    expect(BigInt((coin as { version: string }).version)).toBeGreaterThan(BigInt(usdc.object.version));
    const bcsStatus = bcs.TransactionEffects.parse(failed.effects!.bcs!).V2!.status;
    expect(bcsStatus.Failure?.error.AddressDeniedForCoin?.address).toBe(denied.toSuiAddress());
    expect(await client.getBalance({ owner: denied.toSuiAddress(), coinType: USDC })).toMatchObject({
      balance: { balance: "1000000" },
    });

    // A denied address cannot spend the coin either; lifted, it can.
    const spend = await buildPayment({
      sender: denied.toSuiAddress(),
      gasPayment: [ownGas.object],
      gasPrice: 1000n,
      gasBudget: BUDGET,
      coins: [own.object],
      amount: 1n,
      recipient: "0x8",
    });
    expect(
      await rejection(
        client.executeTransaction({ transaction: spend, signatures: await sign(spend, denied) }),
      ),
    ).toMatch(/AddressDeniedForCoin/);
    net.deny(denied.toSuiAddress(), "USDC", false);
    const lifted = await client.executeTransaction({
      transaction: spend,
      signatures: await sign(spend, denied),
    });
    expect(lifted.Transaction?.status.success).toBe(true);
  });
});

describe("more commands", () => {
  it("transfers the gas coin itself, charging the fee from it", async () => {
    const payer = new Ed25519Keypair();
    const owner = payer.toSuiAddress();
    const gas = await faucet(owner, "SUI", "0.3");
    const tx = new Transaction();
    tx.setSender(owner);
    tx.setGasPrice(1000n);
    tx.setGasBudget(BUDGET);
    tx.setGasPayment([gas.object]);
    tx.transferObjects([tx.gas], tx.pure.address("0xabc"));
    const bytes = await tx.build();
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { balanceChanges: true },
    });
    expect(result.Transaction?.balanceChanges).toEqual(
      expect.arrayContaining([
        { address: normalizeSuiAddress("0xabc"), coinType: SUI, amount: (300_000_000n - FEE).toString() },
        { address: owner, coinType: SUI, amount: "-300000000" },
      ]),
    );
    expect((await client.listCoins({ owner: "0xabc" })).objects[0]?.objectId).toBe(gas.object.objectId);
  });

  it("fails a split whose coin is neither transferred nor merged (Coin has no drop)", async () => {
    const payer = new Ed25519Keypair();
    const owner = payer.toSuiAddress();
    const gas = await faucet(owner, "SUI", "0.3");
    const tx = new Transaction();
    tx.setSender(owner);
    tx.setGasPrice(1000n);
    tx.setGasBudget(BUDGET);
    tx.setGasPayment([gas.object]);
    tx.splitCoins(tx.gas, [tx.pure.u64(5)]);
    const bytes = await tx.build();
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
    });
    expect(result.FailedTransaction?.status.error?.$kind).toBe("Unknown");
    expect(result.FailedTransaction?.status.error?.message).toMatch(/drop/);
  });

  it("pages owned objects and lists checkpoints", async () => {
    const owner = new Ed25519Keypair().toSuiAddress();
    for (let i = 0; i < 3; i++) await faucet(owner, "USDT", "1");
    const first = await client.listCoins({ owner, coinType: net.coinType("USDT"), limit: 2 });
    expect(first.objects).toHaveLength(2);
    expect(first.hasNextPage).toBe(true);
    const second = await client.listCoins({
      owner,
      coinType: net.coinType("USDT"),
      limit: 2,
      cursor: first.cursor,
    });
    expect(second.objects).toHaveLength(1);
    expect(second.hasNextPage).toBe(false);
    const all = await client.listOwnedObjects({ owner, type: "0x2::coin::Coin" });
    expect(all.objects).toHaveLength(3);

    const frames = [];
    for await (const frame of client.ledgerService.listCheckpoints({ startCheckpoint: 0n, endCheckpoint: 3n })
      .responses) {
      frames.push(frame);
    }
    expect(
      frames.filter((frame) => frame.checkpoint).map((frame) => frame.checkpoint?.sequenceNumber),
    ).toEqual([0n, 1n, 2n]);
    expect(frames.at(-1)?.end).toBeDefined();
  });

  it("pays an address with the newcomer's pay command", async () => {
    const merchant = new Ed25519Keypair().toSuiAddress();
    const paid = await pay({ url: net.url, to: merchant, coin: "USDC", amount: "12.50" });
    const tx = await client.getTransaction({ digest: paid.digest, include: { balanceChanges: true } });
    expect(tx.Transaction?.balanceChanges).toContainEqual({
      address: merchant,
      coinType: USDC,
      amount: "12500000",
    });
    const sui = await pay({ url: net.url, to: merchant, coin: "SUI", amount: "0.25" });
    expect(sui.digest).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect((await client.getBalance({ owner: merchant })).balance.balance).toBe("250000000");
  });
});

describe("client-side building", () => {
  it("completes a transaction built with object ids only and no gas data (tx.build with the client)", async () => {
    const payer = new Ed25519Keypair();
    const owner = payer.toSuiAddress();
    const usdc = await faucet(owner, "USDC", "4");
    await faucet(owner, "SUI", "0.5");
    const tx = new Transaction();
    tx.setSender(owner);
    const [part] = tx.splitCoins(tx.object(usdc.object.objectId), [1_500_000]);
    tx.transferObjects([part!], "0x88");
    const result = await client.signAndExecuteTransaction({
      transaction: tx,
      signer: payer,
      include: { balanceChanges: true },
    });
    expect(result.Transaction?.balanceChanges).toEqual(
      expect.arrayContaining([
        { address: normalizeSuiAddress("0x88"), coinType: USDC, amount: "1500000" },
        { address: owner, coinType: SUI, amount: `-${FEE}` },
      ]),
    );
  });

  it("reports a build against a missing object as a simulation error", async () => {
    const tx = new Transaction();
    tx.setSender(new Ed25519Keypair().toSuiAddress());
    tx.transferObjects([tx.object(normalizeSuiAddress("0xdead"))], "0x1");
    await expect(tx.build({ client })).rejects.toThrow(/not found/);
  });
});

describe("digests", () => {
  it("computes object digests as Blake2b-256 over Object:: and the BCS @mysten/sui encodes", async () => {
    const owner = new Ed25519Keypair().toSuiAddress();
    const grant = await faucet(owner, "USDT", "7.25");
    const gas = await faucet(owner, "SUI", "0.1");
    const { objects } = await client.getObjects({
      objectIds: [grant.object.objectId, gas.object.objectId],
      include: { objectBcs: true, content: true },
    });
    for (const object of objects) {
      if (object instanceof Error) throw object;
      const bytes = object.objectBcs!;
      const expected = toBase58(
        blake2b(new Uint8Array([...new TextEncoder().encode("Object::"), ...bytes]), { dkLen: 32 }),
      );
      expect(object.digest).toBe(expected);
      const parsed = bcs.Object.parse(bytes);
      expect(parsed.owner.AddressOwner).toBe(owner);
      expect(parsed.data.Move?.version).toBe(object.version);
      // Re-encoding the parsed object with the SDK's schema gives the same bytes.
      expect(bcs.Object.serialize(parsed).toBytes()).toEqual(bytes);
      const contents = bcs.struct("Coin", { id: bcs.Address, balance: bcs.u64() }).parse(object.content!);
      expect(contents.id).toBe(object.objectId);
    }
    const usdt = objects[0] as { objectBcs: Uint8Array };
    expect(bcs.Object.parse(usdt.objectBcs).data.Move?.type.Coin).toBe(net.coinType("USDT"));
  });

  it("accepts the reference a client builds from listCoins, and effects digests cover the effects BCS", async () => {
    const payer = new Ed25519Keypair();
    const owner = payer.toSuiAddress();
    await faucet(owner, "SUI", "1");
    const [gasRef] = await coinRefs(client, owner, SUI);
    const tx = new Transaction();
    tx.setSender(owner);
    tx.setGasPrice(1000n);
    tx.setGasBudget(BUDGET);
    tx.setGasPayment([gasRef!]);
    tx.transferObjects([tx.gas], tx.pure.address("0x77"));
    const bytes = await tx.build();
    expect(bytes).toEqual(await tx.build());
    const result = await client.executeTransaction({
      transaction: bytes,
      signatures: await sign(bytes, payer),
      include: { effects: true, balanceChanges: true, protoJson: true },
    });
    const effectsBcs = result.Transaction!.effects!.bcs!;
    const parsed = bcs.TransactionEffects.parse(effectsBcs);
    expect(parsed.V2?.transactionDigest).toBe(result.Transaction?.digest);
    expect(result.Transaction?.balanceChanges).toEqual(
      expect.arrayContaining([
        {
          address: "0x0000000000000000000000000000000000000000000000000000000000000077",
          coinType: SUI,
          amount: (1_000_000_000n - FEE).toString(),
        },
      ]),
    );
    const typed = new Uint8Array([...new TextEncoder().encode("TransactionEffects::"), ...effectsBcs]);
    const proto = result.protoJson as { effects?: { digest?: string } };
    expect(proto.effects?.digest).toBe(toBase58(blake2b(typed, { dkLen: 32 })));
  });
});
