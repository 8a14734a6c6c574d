// The services' Solana connection (kept-alive node:http instead of Node's fetch) against the
// local network: answers parsed, a transfer sent and confirmed, an RPC error surfaced as web3.js
// surfaces it.
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solanaConnection } from "./connection.js";

let solana: SolanaLocalnet;

beforeAll(async () => {
  solana = await createSolanaLocalnet({ host: "127.0.0.1", rpcPort: 0, wsPort: 0, slotMs: 20 });
});
afterAll(async () => {
  await solana?.close();
});

describe("solanaConnection", () => {
  it("reads, sends and confirms through the local network's RPC", async () => {
    const connection = solanaConnection(solana.rpcUrl, "confirmed", solana.wsUrl);
    const payer = Keypair.generate();
    solana.fund(payer.publicKey.toBase58(), "SOL", "2");
    const receiver = Keypair.generate().publicKey;
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL);

    const { blockhash } = await connection.getLatestBlockhash();
    const transfer = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver, lamports: 1_000_000 }),
    );
    transfer.sign(payer);
    const signature = await connection.sendRawTransaction(transfer.serialize());
    for (;;) {
      const { value } = await connection.getSignatureStatuses([signature]);
      if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await connection.getBalance(receiver)).toBe(1_000_000);
    const read = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(read?.transaction.signatures[0]).toBe(signature);
  });

  it("surfaces the node's refusal as web3.js does with its own fetch", async () => {
    const connection = solanaConnection(solana.rpcUrl, "confirmed");
    const unfunded = Keypair.generate();
    const { blockhash } = await connection.getLatestBlockhash();
    const transfer = new Transaction({ feePayer: unfunded.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: unfunded.publicKey,
        toPubkey: new PublicKey(solana.faucetAddress),
        lamports: 1,
      }),
    );
    transfer.sign(unfunded);
    await expect(connection.sendRawTransaction(transfer.serialize())).rejects.toThrow(
      /simulation failed|insufficient|not found/i,
    );
  });
});
