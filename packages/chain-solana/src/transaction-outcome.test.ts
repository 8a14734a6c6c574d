// What the runbook after a restore reads of a signed transaction, against the local network.
import { createSolanaLocalnet, type SolanaLocalnet } from "@gateway/solana-localnet";
import { waitFor } from "@gateway/testkit";
import {
  Connection,
  Keypair,
  type PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solanaTransactionOutcome } from "./transaction-outcome.js";

let net: SolanaLocalnet;
let connection: Connection;
const payer = Keypair.generate();

beforeAll(async () => {
  net = await createSolanaLocalnet({ rpcPort: 0, wsPort: 0, slotMs: 10, finalitySlots: 3 });
  connection = new Connection(net.rpcUrl, "confirmed");
  net.fund(payer.publicKey.toBase58(), "SOL", "1");
});
afterAll(async () => {
  await net?.close();
});

function signed(blockhash: string, ...instructions: TransactionInstruction[]) {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
  tx.sign(payer);
  return { tx, signature: bs58.encode(tx.signature!), message: tx.serializeMessage() };
}

const transfer = (lamports: number, to: PublicKey = Keypair.generate().publicKey) =>
  SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports });

/** The outcome once it is no longer `pending`. */
const settled = (signature: string, message: Uint8Array) =>
  waitFor(
    async () => {
      const outcome = await solanaTransactionOutcome(connection, signature, message);
      return outcome !== "pending" && outcome;
    },
    { what: "a final outcome" },
  );

describe("what became of a signed Solana transaction", () => {
  it("succeeded once finalized; pending while signed and still able to land", async () => {
    const { blockhash } = await connection.getLatestBlockhash("confirmed");
    const { tx, signature, message } = signed(blockhash, transfer(1_000_000));
    expect(await solanaTransactionOutcome(connection, signature, message)).toBe("pending");
    await connection.sendRawTransaction(tx.serialize());
    expect(await settled(signature, message)).toBe("succeeded");
  });

  it("failed when it landed and failed", async () => {
    const { blockhash } = await connection.getLatestBlockhash("confirmed");
    const { tx, signature, message } = signed(blockhash, transfer(10_000_000_000));
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(await settled(signature, message)).toBe("failed");
  });

  it("never when it is not on chain and its blockhash, or its durable nonce, can no longer be used", async () => {
    const expired = signed(bs58.encode(Keypair.generate().publicKey.toBytes()), transfer(1));
    expect(await solanaTransactionOutcome(connection, expired.signature, expired.message)).toBe("never");
    const nonceAccount = Keypair.generate().publicKey;
    const advance = SystemProgram.nonceAdvance({
      noncePubkey: nonceAccount,
      authorizedPubkey: payer.publicKey,
    });
    const durable = signed(bs58.encode(Keypair.generate().publicKey.toBytes()), advance, transfer(1));
    expect(await solanaTransactionOutcome(connection, durable.signature, durable.message)).toBe("never");
  });
});
