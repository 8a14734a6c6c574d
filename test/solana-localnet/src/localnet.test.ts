import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type Logs,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSolanaLocalnet, type SolanaLocalnet } from "./index.js";

let net: SolanaLocalnet;
let connection: Connection;
let usdc: PublicKey;

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${net.rpcUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function fundedWallet(sol: string, usdcAmount?: string): Promise<Keypair> {
  const wallet = Keypair.generate();
  const airdrop = await post("/faucet", { owner: wallet.publicKey.toBase58(), coin: "SOL", amount: sol });
  expect(airdrop.status).toBe(200);
  if (usdcAmount) {
    const minted = await post("/faucet", {
      owner: wallet.publicKey.toBase58(),
      coin: "USDC",
      amount: usdcAmount,
    });
    expect(minted.status).toBe(200);
  }
  return wallet;
}

function usdcTransfer(from: Keypair, to: PublicKey, amount: bigint, createDestination = true): Transaction {
  const source = getAssociatedTokenAddressSync(usdc, from.publicKey);
  const destination = getAssociatedTokenAddressSync(usdc, to, true);
  const tx = new Transaction();
  if (createDestination) {
    tx.add(createAssociatedTokenAccountIdempotentInstruction(from.publicKey, destination, to, usdc));
  }
  return tx.add(createTransferCheckedInstruction(source, usdc, destination, from.publicKey, amount, 6));
}

beforeAll(async () => {
  net = await createSolanaLocalnet({
    rpcPort: 0,
    wsPort: 0,
    slotMs: 20,
    finalitySlots: 8,
    blockhashExpirySlots: 2000,
  });
  usdc = new PublicKey(net.mints.USDC);
});

// A fresh Connection per test: web3.js caches blockhashes for 30 s, and one test expires them all.
beforeEach(() => {
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
});

afterAll(async () => {
  await net.close();
});

describe("solana localnet through @solana/web3.js", () => {
  it("answers getHealth, getVersion, getGenesisHash, getEpochInfo and /info", async () => {
    expect(await fetch(`${net.rpcUrl}/healthz`).then((r) => r.text())).toBe("ok");
    const health = await post("/", { jsonrpc: "2.0", id: 1, method: "getHealth" });
    expect(health.json).toEqual({ jsonrpc: "2.0", id: 1, result: "ok" });
    const batch = (await fetch(net.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "getSlot" },
        { jsonrpc: "2.0", id: 2, method: "getBlockHeight", params: [{ commitment: "finalized" }] },
      ]),
    }).then((r) => r.json())) as { id: number; result: number }[];
    expect(batch.map((entry) => entry.id)).toEqual([1, 2]);
    expect(batch[0]!.result).toBeGreaterThanOrEqual(batch[1]!.result);
    const version = await connection.getVersion();
    expect(version["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await connection.getGenesisHash()).toBe(net.genesisHash);
    const epoch = await connection.getEpochInfo();
    expect(epoch.absoluteSlot).toBeGreaterThanOrEqual(0);
    const info = (await fetch(`${net.rpcUrl}/info`).then((r) => r.json())) as Record<string, unknown>;
    expect(info["mints"]).toEqual({
      USDC: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
      USDT: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB",
    });
    expect(typeof info["finalizedSlot"]).toBe("number");
    const mint = await connection.getParsedAccountInfo(usdc);
    expect(mint.value?.data).toMatchObject({
      program: "spl-token",
      parsed: { type: "mint", info: { decimals: 6 } },
    });
  });

  it("airdrops with requestAirdrop and confirms over the WebSocket", async () => {
    const wallet = Keypair.generate();
    const signature = await connection.requestAirdrop(wallet.publicKey, 2 * LAMPORTS_PER_SOL);
    const blockhash = await connection.getLatestBlockhash();
    const confirmation = await connection.confirmTransaction({ signature, ...blockhash }, "confirmed");
    expect(confirmation.value.err).toBeNull();
    expect(await connection.getBalance(wallet.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
    const statuses = await connection.getSignatureStatuses([signature]);
    expect(statuses.value[0]?.confirmationStatus).toBe("confirmed");
  });

  it("mints through the faucet into the owner's associated token account", async () => {
    const owner = Keypair.generate().publicKey;
    const response = await post("/faucet", { owner: owner.toBase58(), coin: "USDC", amount: "12.345678" });
    expect(response.status).toBe(200);
    expect(typeof response.json["signature"]).toBe("string");
    const ata = getAssociatedTokenAddressSync(usdc, owner);
    const account = await getAccount(connection, ata, "confirmed");
    expect(account.amount).toBe(12_345_678n);
    expect(account.owner.toBase58()).toBe(owner.toBase58());

    const byMint = await connection.getParsedTokenAccountsByOwner(owner, { mint: usdc });
    expect(byMint.value).toHaveLength(1);
    expect(byMint.value[0]?.pubkey.toBase58()).toBe(ata.toBase58());
    expect(byMint.value[0]?.account.data.parsed.info.tokenAmount).toEqual({
      amount: "12345678",
      decimals: 6,
      uiAmount: 12.345678,
      uiAmountString: "12.345678",
    });
    const byProgram = await connection.getTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID });
    expect(byProgram.value.map((entry) => entry.pubkey.toBase58())).toEqual([ata.toBase58()]);
    const balance = await connection.getTokenAccountBalance(ata);
    expect(balance.value.amount).toBe("12345678");

    const tooPrecise = await post("/faucet", { owner: owner.toBase58(), coin: "USDC", amount: "1.0000001" });
    expect(tooPrecise.status).toBe(400);
  });

  it("transfers SPL tokens with sendAndConfirmTransaction and reports exact raw amounts", async () => {
    const payer = await fundedWallet("1", "100");
    const recipient = Keypair.generate().publicKey;
    const signature = await sendAndConfirmTransaction(
      connection,
      usdcTransfer(payer, recipient, 12_500_001n),
      [payer],
    );

    const tx = await connection.getTransaction(signature, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(tx).not.toBeNull();
    const meta = tx!.meta!;
    expect(meta.err).toBeNull();
    expect(meta.fee).toBe(5000);
    expect(meta.loadedAddresses).toEqual({ writable: [], readonly: [] });
    expect(meta.logMessages?.length).toBeGreaterThan(0);
    expect(tx!.version).toBe("legacy");
    const keys = tx!.transaction.message.staticAccountKeys.map((key) => key.toBase58());
    const payerAta = getAssociatedTokenAddressSync(usdc, payer.publicKey).toBase58();
    const recipientAta = getAssociatedTokenAddressSync(usdc, recipient).toBase58();
    const pre = meta.preTokenBalances!.map((b) => [keys[b.accountIndex], b.uiTokenAmount.amount]);
    const post = meta.postTokenBalances!.map((b) => [keys[b.accountIndex], b.uiTokenAmount.amount, b.owner]);
    expect(pre).toEqual([[payerAta, "100000000"]]);
    expect(post).toEqual(
      expect.arrayContaining([
        [payerAta, "87499999", payer.publicKey.toBase58()],
        [recipientAta, "12500001", recipient.toBase58()],
      ]),
    );
    // The payer paid the fee and the new account's rent, nothing else.
    const rent = await connection.getMinimumBalanceForRentExemption(165);
    expect(meta.preBalances[0]! - meta.postBalances[0]!).toBe(5000 + rent);

    // Not finalized yet: a finalized read does not see it; then it does.
    expect(await connection.getTransaction(signature, { commitment: "finalized" })).toBeNull();
    expect((await connection.getSignatureStatus(signature)).value?.confirmationStatus).toBe("confirmed");
    await net.waitForFinalizedSlot(tx!.slot);
    const finalized = await connection.getTransaction(signature, { commitment: "finalized" });
    expect(finalized?.meta?.postTokenBalances).toEqual(meta.postTokenBalances);
    expect((await connection.getSignatureStatus(signature)).value?.confirmationStatus).toBe("finalized");

    const parsed = await connection.getParsedTransaction(signature, "finalized");
    const transfer = parsed?.transaction.message.instructions[1];
    expect(transfer).toMatchObject({
      program: "spl-token",
      parsed: {
        type: "transferChecked",
        info: {
          source: payerAta,
          destination: recipientAta,
          tokenAmount: { amount: "12500001", decimals: 6 },
        },
      },
    });
    expect(parsed?.meta?.innerInstructions?.[0]?.index).toBe(0);

    // The block holds it too, so a follower can read slot by slot.
    const block = await connection.getBlock(tx!.slot, {
      maxSupportedTransactionVersion: 0,
      commitment: "finalized",
    });
    const inBlock = block?.transactions.find((entry) => entry.transaction.signatures[0] === signature);
    expect(inBlock?.meta?.postTokenBalances).toEqual(meta.postTokenBalances);
    expect(block?.parentSlot).toBe(tx!.slot - 1);
    expect(block?.blockTime).toBe(tx!.blockTime);
    expect(await connection.getBlocks(tx!.slot - 1, tx!.slot + 1, "confirmed")).toEqual([
      tx!.slot - 1,
      tx!.slot,
      tx!.slot + 1,
    ]);
  });

  it("serves the finalized state separately from the confirmed one", async () => {
    const wallet = await fundedWallet("1");
    await net.waitForFinalizedSlot(net.slot());
    const recipient = Keypair.generate().publicKey;
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: wallet.publicKey,
        toPubkey: recipient,
        lamports: LAMPORTS_PER_SOL / 10,
      }),
    );
    await sendAndConfirmTransaction(connection, tx, [wallet]);
    expect(await connection.getBalance(recipient, "confirmed")).toBe(LAMPORTS_PER_SOL / 10);
    expect(await connection.getBalance(recipient, "finalized")).toBe(0);
    await net.waitForFinalizedSlot(net.slot());
    expect(await connection.getBalance(recipient, "finalized")).toBe(LAMPORTS_PER_SOL / 10);
  });

  it("pages getSignaturesForAddress newest first with before, until and limit", async () => {
    const payer = await fundedWallet("1", "10");
    const recipient = Keypair.generate().publicKey;
    const recipientAta = getAssociatedTokenAddressSync(usdc, recipient);
    const sent: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      sent.push(
        await sendAndConfirmTransaction(connection, usdcTransfer(payer, recipient, BigInt(i)), [payer]),
      );
    }
    const newestFirst = [...sent].reverse();
    const all = await connection.getSignaturesForAddress(recipientAta, {}, "confirmed");
    expect(all.map((entry) => entry.signature)).toEqual(newestFirst);
    expect(all[0]).toMatchObject({ err: null, memo: null, confirmationStatus: "confirmed" });

    const page1 = await connection.getSignaturesForAddress(recipientAta, { limit: 2 }, "confirmed");
    const page2 = await connection.getSignaturesForAddress(
      recipientAta,
      { limit: 2, before: page1.at(-1)!.signature },
      "confirmed",
    );
    expect([...page1, ...page2].map((entry) => entry.signature)).toEqual(newestFirst.slice(0, 4));
    const untilOldest = await connection.getSignaturesForAddress(
      recipientAta,
      { until: sent[0] },
      "confirmed",
    );
    expect(untilOldest.map((entry) => entry.signature)).toEqual(newestFirst.slice(0, 4));

    const finalizedNow = await connection.getSignaturesForAddress(recipientAta, {}, "finalized");
    expect(finalizedNow.length).toBeLessThan(5);
  });

  it("rejects an expired blockhash with BlockhashNotFound, and a rebuilt transaction goes through", async () => {
    const wallet = await fundedWallet("1");
    const { blockhash } = await connection.getLatestBlockhash();
    const advanced = await post("/control/slots", { advance: 2001 });
    expect(advanced.json["slot"]).toBeGreaterThanOrEqual(2001);
    expect(await connection.isBlockhashValid(blockhash)).toMatchObject({ value: false });
    const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: wallet.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1e7,
      }),
    );
    tx.sign(wallet);
    const error = await connection.sendRawTransaction(tx.serialize()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as SendTransactionError).message).toContain("Blockhash not found");

    const fresh = await connection.getLatestBlockhash();
    tx.recentBlockhash = fresh.blockhash;
    tx.signatures = [];
    tx.sign(wallet);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const result = await connection.confirmTransaction({ signature, ...fresh });
    expect(result.value.err).toBeNull();
  });

  it("reports a failed transaction (insufficient funds) with its error, and refuses it in preflight", async () => {
    const payer = await fundedWallet("1", "1");
    const tooMuch = usdcTransfer(payer, Keypair.generate().publicKey, 2_000_000n);

    const preflight = await sendAndConfirmTransaction(connection, tooMuch, [payer]).catch((e: unknown) => e);
    expect(preflight).toBeInstanceOf(SendTransactionError);
    const logs = await (preflight as SendTransactionError).getLogs(connection);
    expect(logs.join("\n")).toContain("insufficient funds");

    const before = await connection.getBalance(payer.publicKey);
    const blockhash = await connection.getLatestBlockhash();
    const failing = usdcTransfer(payer, Keypair.generate().publicKey, 2_000_000n);
    failing.recentBlockhash = blockhash.blockhash;
    failing.feePayer = payer.publicKey;
    failing.sign(payer);
    const signature = await connection.sendRawTransaction(failing.serialize(), { skipPreflight: true });
    const confirmation = await connection.confirmTransaction({ signature, ...blockhash });
    expect(confirmation.value.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    const landed = await connection.getTransaction(signature, { commitment: "confirmed" });
    expect(landed?.meta?.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(landed?.meta?.fee).toBe(5000);
    expect(before - (await connection.getBalance(payer.publicKey))).toBe(5000);
    const status = await connection.getSignatureStatus(signature);
    expect(status.value?.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
  });

  it("notifies account, logs and slot subscriptions", async () => {
    const wallet = await fundedWallet("1");
    const recipient = Keypair.generate().publicKey;
    const slots: number[] = [];
    const slotSub = connection.onSlotChange((info) => slots.push(info.slot));
    const lamports = new Promise<number>((resolve) => {
      const sub = connection.onAccountChange(
        recipient,
        (account) => {
          void connection.removeAccountChangeListener(sub);
          resolve(account.lamports);
        },
        { commitment: "confirmed" },
      );
    });
    const logs = new Promise<Logs>((resolve) => {
      const sub = connection.onLogs(
        recipient,
        (entry) => {
          void connection.removeOnLogsListener(sub);
          resolve(entry);
        },
        "confirmed",
      );
    });
    // Give the subscription time to reach the server before the transfer lands.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: recipient, lamports: 3_000_000 }),
    );
    await sendAndConfirmTransaction(connection, tx, [wallet]);
    expect(await lamports).toBe(3_000_000);
    const logged = await logs;
    expect(logged.err).toBeNull();
    expect(logged.logs[0]).toContain("11111111111111111111111111111111 invoke");
    await connection.removeSlotChangeListener(slotSub);
    expect(slots.length).toBeGreaterThan(0);
  });

  it("accepts v0 transactions and answers getFeeForMessage and simulateTransaction", async () => {
    const wallet = await fundedWallet("1");
    const { blockhash } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: wallet.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1e7,
        }),
      ],
    }).compileToV0Message();
    expect((await connection.getFeeForMessage(message)).value).toBe(5000);
    const tx = new VersionedTransaction(message);
    tx.sign([wallet]);
    const simulation = await connection.simulateTransaction(tx);
    expect(simulation.value.err).toBeNull();
    expect(simulation.value.logs?.length).toBeGreaterThan(0);

    const signature = await connection.sendTransaction(tx);
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight: 1e9 });
    const unsupported = await connection
      .getTransaction(signature, { commitment: "confirmed" } as never)
      .catch((e) => e);
    expect(String(unsupported)).toContain("maxSupportedTransactionVersion");
    const landed = await connection.getTransaction(signature, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(landed?.version).toBe(0);
    expect(landed?.meta?.fee).toBe(5000);
  });

  it("gives two identical faucet requests in one slot two transactions", () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const first = net.fund(owner, "USDC", "1");
    const second = net.fund(owner, "USDC", "1");
    expect(second).not.toBe(first);
  });

  it("returns JSON-RPC errors for unknown methods and bad params", async () => {
    const unknown = await post("/", { jsonrpc: "2.0", id: 1, method: "getNothing", params: [] });
    expect(unknown.json["error"]).toMatchObject({ code: -32601 });
    const bad = await post("/", { jsonrpc: "2.0", id: 2, method: "getBalance", params: ["not-a-key"] });
    expect(bad.json["error"]).toMatchObject({ code: -32602 });
    const processed = await post("/", {
      jsonrpc: "2.0",
      id: 3,
      method: "getTransaction",
      params: ["1".repeat(64), { commitment: "processed" }],
    });
    expect(processed.json["error"]).toMatchObject({ code: -32602 });
  });
});
