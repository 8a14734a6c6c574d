import { Keypair, SystemProgram, Transaction, TransactionMessage, VersionedMessage } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { MessageFormatError, parseSolanaMessage } from "./solana-message.js";

const payer = Keypair.generate().publicKey;
const to = Keypair.generate().publicKey;
const blockhash = Keypair.generate().publicKey.toBase58();
const transfer = SystemProgram.transfer({ fromPubkey: payer, toPubkey: to, lamports: 5n });
const hex = (key: { toBuffer(): Buffer }) => key.toBuffer().toString("hex");

function expectSameAsWeb3(bytes: Uint8Array) {
  const ours = parseSolanaMessage(bytes);
  const theirs = VersionedMessage.deserialize(bytes);
  expect(ours.keys).toEqual(theirs.staticAccountKeys.map(hex));
  expect(ours.numRequiredSignatures).toBe(theirs.header.numRequiredSignatures);
  expect(
    ours.instructions.map((ix) => [ix.program, ix.accounts, Buffer.from(ix.data).toString("hex")]),
  ).toEqual(
    theirs.compiledInstructions.map((ix) => [
      hex(theirs.staticAccountKeys[ix.programIdIndex]!),
      ix.accountKeyIndexes.map((i) => hex(theirs.staticAccountKeys[i]!)),
      Buffer.from(ix.data).toString("hex"),
    ]),
  );
}

describe("parseSolanaMessage", () => {
  it("reads legacy messages as web3.js does", () => {
    expectSameAsWeb3(
      new Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(transfer).serializeMessage(),
    );
  });

  it("reads v0 messages as web3.js does", () => {
    const message = new TransactionMessage({
      payerKey: payer,
      recentBlockhash: blockhash,
      instructions: [transfer],
    });
    expectSameAsWeb3(message.compileToV0Message().serialize());
  });

  it("refuses trailing bytes, truncation and unknown versions", () => {
    const bytes = new Transaction({ feePayer: payer, recentBlockhash: blockhash })
      .add(transfer)
      .serializeMessage();
    expect(() => parseSolanaMessage(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(MessageFormatError);
    expect(() => parseSolanaMessage(bytes.subarray(0, bytes.length - 1))).toThrow(MessageFormatError);
    expect(() => parseSolanaMessage(Buffer.concat([Buffer.from([0x81]), bytes]))).toThrow(/version/);
  });

  it("refuses a message that lists an account key twice", () => {
    const bytes = Buffer.from(
      new Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(transfer).serializeMessage(),
    );
    // Header (3 bytes) and key count (1 byte), then the keys: payer, recipient, system program.
    expect(bytes[3]).toBe(3);
    bytes.copy(bytes, 4 + 32, 4, 4 + 32);
    expect(() => parseSolanaMessage(bytes)).toThrow(/duplicate account keys/);
  });

  it("gives instruction data as a view into the message, not a copy", () => {
    const bytes = new Transaction({ feePayer: payer, recentBlockhash: blockhash })
      .add(transfer)
      .serializeMessage();
    const [ix] = parseSolanaMessage(bytes).instructions;
    expect(ix!.data.buffer).toBe(bytes.buffer);
    expect(ix!.data.readUInt32LE(0)).toBe(2);
  });
});
