import { createHash } from "node:crypto";
import {
  Keypair,
  Message,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from "@solana/web3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSolanaSweep, buildSolanaTransfer, SOL_ASSET } from "./solana.js";
import { compileLegacyMessage } from "./solana-message.js";

const web3Message = (feePayer: PublicKey, blockhash: string, instructions: TransactionInstruction[]) =>
  new Uint8Array(
    new Transaction({ feePayer, recentBlockhash: blockhash }).add(...instructions).serializeMessage(),
  );

// A few keys drawn again and again, so that messages name the same account in several places,
// with different flags, as programs and as accounts, and the fee payer among them or not; with
// leading zero bytes (leading 1s in base58) and all ones among them.
const keys = [
  // Fixed seeds, so the keys (and the test below about their order) are the same every run.
  ...Array.from(
    { length: 14 },
    (_, n) => Keypair.fromSeed(createHash("sha256").update(`solana-message-test:${n}`).digest()).publicKey,
  ),
  new PublicKey(new Uint8Array(32)),
  new PublicKey(Uint8Array.from({ length: 32 }, (_, n) => (n < 3 ? 0 : n))),
  new PublicKey(new Uint8Array(32).fill(255)),
];
const key = fc.constantFrom(...keys);
const instruction = fc
  .record({
    programId: key,
    keys: fc.array(fc.record({ pubkey: key, isSigner: fc.boolean(), isWritable: fc.boolean() }), {
      maxLength: 6,
    }),
    // Past 127 bytes the data's length takes two bytes.
    data: fc.uint8Array({ maxLength: 200 }),
  })
  .map((i) => new TransactionInstruction({ ...i, data: Buffer.from(i.data) }));

describe("compileLegacyMessage", () => {
  it("is tried on keys whose order as text is not their order as code units", () => {
    // Otherwise a plain comparison would pass the test below as well as web3.js's collation.
    const texts = keys.map((k) => k.toBase58());
    const collated = [...texts].sort(new Intl.Collator("en", { caseFirst: "lower" }).compare);
    expect(collated).not.toEqual([...texts].sort());
  });

  it("gives web3.js's bytes for any instructions, fee payer and blockhash", () => {
    fc.assert(
      fc.property(
        key,
        key,
        fc.array(instruction, { minLength: 1, maxLength: 4 }),
        (payer, hash, instructions) => {
          const blockhash = hash.toBase58();
          expect(compileLegacyMessage(payer, blockhash, instructions)).toEqual(
            web3Message(payer, blockhash, instructions),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("gives web3.js's bytes for the transactions the builders make", () => {
    const [vault, gasWallet, deposit, destination, mint, nonce] = Array.from({ length: 6 }, () =>
      Keypair.generate().publicKey.toBase58(),
    );
    const recentBlockhash = Keypair.generate().publicKey.toBase58();
    const moves = [
      buildSolanaSweep({
        asset: mint!,
        depositOwner: deposit!,
        vault: vault!,
        gasWallet: gasWallet!,
        amount: 5n,
        decimals: 6,
        recentBlockhash,
        closeDepositAccount: true,
      }),
      buildSolanaSweep({
        asset: SOL_ASSET,
        depositOwner: deposit!,
        vault: vault!,
        gasWallet: gasWallet!,
        amount: 5n,
        recentBlockhash,
      }),
      buildSolanaTransfer({
        asset: mint!,
        source: vault!,
        destination: destination!,
        gasWallet: gasWallet!,
        amount: 7n,
        decimals: 6,
        recentBlockhash,
        nonceAccount: nonce!,
        computeUnitLimit: 80_000,
        computeUnitPriceMicroLamports: 5n,
      }),
    ];
    for (const bytes of moves) {
      // Decoded by web3.js and compiled again by it: the same message.
      const again = Transaction.populate(Message.from(Buffer.from(bytes)));
      expect(new Uint8Array(again.serializeMessage())).toEqual(bytes);
    }
  });

  it("puts the fee payer first as a writable signer, named by the instructions or not", () => {
    const [payer, other] = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const transfer = SystemProgram.transfer({ fromPubkey: other, toPubkey: payer, lamports: 1 });
    const bytes = compileLegacyMessage(payer, other.toBase58(), [transfer]);
    // Two signers (payer, other), none read-only; one read-only unsigned key (the program).
    expect([...bytes.subarray(0, 4)]).toEqual([2, 0, 1, 3]);
    expect(new PublicKey(bytes.subarray(4, 36)).equals(payer)).toBe(true);
  });

  it("refuses instructions longer than a packet", () => {
    const big = new TransactionInstruction({ programId: keys[0]!, keys: [], data: Buffer.alloc(1300) });
    expect(() => compileLegacyMessage(keys[1]!, keys[2]!.toBase58(), [big])).toThrow(RangeError);
  });
});
