import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, sendAndConfirmTransaction, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSolanaLocalnet, type EnhancedTransaction, type SolanaLocalnet } from "./index.js";

interface Received {
  headers: IncomingHttpHeaders;
  body: EnhancedTransaction[];
  /** Commitment of the transaction on the network when the delivery arrived. */
  commitment: string | undefined;
}

let net: SolanaLocalnet;
let connection: Connection;
let receiver: Server;
let receiverUrl: string;
let received: Received[] = [];
/** Status codes the receiver answers with, one per request, then 200. */
let answers: number[] = [];
let usdc: PublicKey;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${net.rpcUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function payer(usdcAmount: string): Promise<Keypair> {
  const wallet = Keypair.generate();
  net.fund(wallet.publicKey.toBase58(), "SOL", "1");
  net.fund(wallet.publicKey.toBase58(), "USDC", usdcAmount);
  return wallet;
}

async function pay(
  from: Keypair,
  to: PublicKey,
  amount: bigint,
  createDestination: boolean,
): Promise<string> {
  const source = getAssociatedTokenAddressSync(usdc, from.publicKey);
  const destination = getAssociatedTokenAddressSync(usdc, to);
  const tx = new Transaction();
  if (createDestination) {
    tx.add(createAssociatedTokenAccountIdempotentInstruction(from.publicKey, destination, to, usdc));
  }
  tx.add(createTransferCheckedInstruction(source, usdc, destination, from.publicKey, amount, 6));
  return sendAndConfirmTransaction(connection, tx, [from]);
}

async function register(addresses: string[]): Promise<string> {
  const created = await call("POST", "/v0/webhooks?api-key=test", {
    webhookURL: receiverUrl,
    transactionTypes: ["ANY"],
    accountAddresses: addresses,
    webhookType: "enhanced",
    authHeader: "Bearer hook-secret",
  });
  expect(created.status).toBe(200);
  return String(created.json["webhookID"]);
}

const forSignature = (signature: string) =>
  received.filter((entry) => entry.body.some((tx) => tx.signature === signature));

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as EnhancedTransaction[];
      const record = net.chain.getTransaction(body[0]?.signature ?? "");
      const commitment = record ? net.chain.commitmentOf(record) : undefined;
      received.push({ headers: req.headers, body, commitment });
      const status = answers.shift() ?? 200;
      // 0: no answer at all, until the sender gives up.
      if (status === 0) return;
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/helius`;
  // The clock stands still (slotMs 0): nothing finalizes unless a test advances slots, so
  // "delivered at confirmed" is checked without racing the clock.
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 0, webhookRetryDelayMs: 50 });
  usdc = new PublicKey(net.mints.USDC);
});

beforeEach(() => {
  received = [];
  answers = [];
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
});

afterAll(async () => {
  await net.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe("Helius-style webhooks", () => {
  it("manages webhooks with the /v0/webhooks API", async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const id = await register([owner]);
    const fetched = await call("GET", `/v0/webhooks/${id}`);
    expect(fetched.json).toMatchObject({
      webhookID: id,
      webhookURL: receiverUrl,
      accountAddresses: [owner],
      webhookType: "enhanced",
      authHeader: "Bearer hook-secret",
    });
    const another = Keypair.generate().publicKey.toBase58();
    const updated = await call("PUT", `/v0/webhooks/${id}`, {
      webhookURL: receiverUrl,
      accountAddresses: [owner, another],
      transactionTypes: ["TRANSFER"],
      webhookType: "enhanced",
      authHeader: "Bearer hook-secret",
    });
    expect(updated.json["accountAddresses"]).toEqual([owner, another]);
    expect((await call("GET", "/v0/webhooks")).json).toEqual(expect.arrayContaining([updated.json]));
    expect((await call("POST", "/v0/webhooks", { webhookURL: "nope" })).status).toBe(400);
    expect((await call("DELETE", `/v0/webhooks/${id}`)).status).toBe(200);
    expect((await call("GET", `/v0/webhooks/${id}`)).status).toBe(404);
  });

  it("delivers an enhanced transaction for a transfer to a registered owner, with the auth header", async () => {
    const owner = Keypair.generate().publicKey;
    await register([owner.toBase58()]);
    const from = await payer("50");
    // The owner's token account already exists, so the owner is not among the transaction's
    // accounts: it is matched as the token account's owner.
    net.fund(owner.toBase58(), "USDC", "1");
    await net.webhooks.idle();
    received = [];
    const signature = await pay(from, owner, 12_500_001n, false);
    await net.webhooks.idle();

    const deliveries = forSignature(signature);
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    expect(delivery?.headers.authorization).toBe("Bearer hook-secret");
    const tx = delivery!.body[0]!;
    const ownerAta = getAssociatedTokenAddressSync(usdc, owner).toBase58();
    expect(tx).toMatchObject({
      signature,
      type: "TRANSFER",
      feePayer: from.publicKey.toBase58(),
      fee: 5000,
      transactionError: null,
      tokenTransfers: [
        {
          fromUserAccount: from.publicKey.toBase58(),
          toUserAccount: owner.toBase58(),
          toTokenAccount: ownerAta,
          mint: usdc.toBase58(),
          tokenAmount: 12.500001,
          tokenStandard: "Fungible",
        },
      ],
    });
    expect(typeof tx.slot).toBe("number");
    expect(typeof tx.timestamp).toBe("number");
    const change = tx.accountData.find((entry) => entry.account === ownerAta)?.tokenBalanceChanges[0];
    expect(change).toEqual({
      userAccount: owner.toBase58(),
      tokenAccount: ownerAta,
      mint: usdc.toBase58(),
      rawTokenAmount: { tokenAmount: "12500001", decimals: 6 },
    });
    // Delivered at `confirmed`: the transaction is not finalized yet when the webhook arrives.
    expect(delivery?.commitment).toBe("confirmed");
  });

  it("drops and duplicates the next deliveries when told to", async () => {
    const owner = Keypair.generate().publicKey;
    await register([owner.toBase58()]);
    const from = await payer("10");
    await net.webhooks.idle();

    const control = await call("POST", "/control/webhooks", { drop: 1 });
    expect(control.json).toMatchObject({ drop: 1 });
    const dropped = await pay(from, owner, 1_000_000n, true);
    await net.webhooks.idle();
    expect(forSignature(dropped)).toHaveLength(0);

    await call("POST", "/control/webhooks", { duplicate: 1 });
    const duplicated = await pay(from, owner, 2_000_000n, true);
    await net.webhooks.idle();
    expect(forSignature(duplicated)).toHaveLength(2);

    const normal = await pay(from, owner, 3_000_000n, true);
    await net.webhooks.idle();
    expect(forSignature(normal)).toHaveLength(1);

    const log = (await call("GET", "/control/webhooks")).json["deliveries"] as {
      signature: string;
      outcome: string;
    }[];
    expect(log.filter((entry) => entry.signature === dropped).map((entry) => entry.outcome)).toEqual([
      "dropped",
    ]);
  });

  it("retries a failed delivery up to 3 times", async () => {
    const owner = Keypair.generate().publicKey;
    await register([owner.toBase58()]);
    const from = await payer("10");
    await net.webhooks.idle();
    received = [];

    answers = [500, 503];
    const retried = await pay(from, owner, 1_000_000n, true);
    await net.webhooks.idle();
    expect(forSignature(retried)).toHaveLength(3);
    const attempts = net.webhooks.deliveries().filter((entry) => entry.signature === retried);
    expect(attempts.map((entry) => [entry.attempt, entry.outcome])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [3, "delivered"],
    ]);

    received = [];
    answers = [500, 500, 500, 500, 500];
    const abandoned = await pay(from, owner, 1_000_001n, true);
    await net.webhooks.idle();
    expect(forSignature(abandoned)).toHaveLength(4);
  });

  it("gives up on a delivery that gets no answer in time, and tries it again", async () => {
    const impatient = await createSolanaLocalnet({
      rpcPort: 0,
      wsPort: 0,
      slotMs: 0,
      webhookRetryDelayMs: 50,
      webhookTimeoutMs: 300,
    });
    try {
      const owner = Keypair.generate().publicKey;
      const created = await fetch(`${impatient.rpcUrl}/v0/webhooks?api-key=test`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          webhookURL: receiverUrl,
          transactionTypes: ["ANY"],
          accountAddresses: [owner.toBase58()],
          webhookType: "enhanced",
        }),
      });
      expect(created.status).toBe(200);
      answers = [0];
      const signature = impatient.fund(owner.toBase58(), "SOL", "1");
      await impatient.webhooks.idle();
      const attempts = impatient.webhooks.deliveries().filter((entry) => entry.signature === signature);
      expect(attempts.map((entry) => [entry.attempt, entry.outcome, entry.status])).toEqual([
        [1, "failed", null],
        [2, "delivered", 200],
      ]);
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(40);
    } finally {
      await impatient.close();
    }
  });
});
