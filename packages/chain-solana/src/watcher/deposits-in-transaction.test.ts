import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DepositLookup, depositsInTransaction } from "./deposits-in-transaction.js";

let net: SolanaLocalnet;
let connection: Connection;

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 20, finalitySlots: 2 });
  connection = new Connection(net.rpcUrl, { commitment: "confirmed", wsEndpoint: net.wsUrl });
});
afterAll(async () => {
  await net.close();
});

function lookup(watched: Record<string, "USDC" | "USDT" | "SOL">): DepositLookup {
  return {
    watched: (address) => (watched[address] ? { address, coin: watched[address] } : undefined),
    coinOfMint: (mint) => (mint === net.mints.USDC ? "USDC" : mint === net.mints.USDT ? "USDT" : undefined),
  };
}

async function send(payer: Keypair, tx: Transaction) {
  tx.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
  tx.feePayer = payer.publicKey;
  tx.sign(payer);
  const signature = await connection.sendRawTransaction(tx.serialize());
  return (await connection.getTransaction(signature, {
    commitment: "confirmed",
    maxSupportedTransactionVersion: 0,
  }))!;
}

describe("depositsInTransaction", () => {
  it("takes the exact raw amount, the sender and the instruction of a token transfer", async () => {
    const payer = Keypair.generate();
    net.fund(payer.publicKey.toBase58(), "SOL", "1");
    net.fund(payer.publicKey.toBase58(), "USDC", "50");
    const deposit = Keypair.generate().publicKey;
    const mint = new PublicKey(net.mints.USDC);
    const to = getAssociatedTokenAddressSync(mint, deposit, true);
    const tx = await send(
      payer,
      new Transaction().add(
        createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, to, deposit, mint),
        createTransferCheckedInstruction(
          getAssociatedTokenAddressSync(mint, payer.publicKey),
          mint,
          to,
          payer.publicKey,
          12_500_001n,
          6,
        ),
      ),
    );
    expect(depositsInTransaction(tx, lookup({ [deposit.toBase58()]: "USDC" }))).toEqual([
      {
        address: deposit.toBase58(),
        coin: "USDC",
        amount: 12_500_001n,
        sender: payer.publicKey.toBase58(),
        instructionIndex: 0,
      },
    ]);
    // The same transfer means nothing to a USDT wallet or an unwatched address.
    expect(depositsInTransaction(tx, lookup({ [deposit.toBase58()]: "USDT" }))).toEqual([]);
    expect(depositsInTransaction(tx, lookup({}))).toEqual([]);
  });

  it("reads lamports for SOL, and nothing from the sending side", async () => {
    const payer = Keypair.generate();
    net.fund(payer.publicKey.toBase58(), "SOL", "2");
    const deposit = Keypair.generate().publicKey;
    const tx = await send(
      payer,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: deposit, lamports: 1_000_000_007 }),
      ),
    );
    const found = depositsInTransaction(
      tx,
      lookup({ [deposit.toBase58()]: "SOL", [payer.publicKey.toBase58()]: "SOL" }),
    );
    expect(found).toEqual([
      {
        address: deposit.toBase58(),
        coin: "SOL",
        amount: 1_000_000_007n,
        sender: payer.publicKey.toBase58(),
        instructionIndex: 0,
      },
    ]);
  });
});
