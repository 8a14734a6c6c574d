import { createPrivateKey, sign } from "node:crypto";
import { bcs } from "@mysten/sui/bcs";
import { Keypair, Message, PublicKey, Transaction, VersionedMessage } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { buildSolanaSweep, buildSolanaTransfer, SOL_ASSET, solanaWireTransaction } from "./solana.js";
import { buildSuiSweep, encodeSuiCoinObject, SUI_COIN_TYPE, suiObjectDigest } from "./sui.js";

const detached = (keypair: Keypair, message: Uint8Array) => {
  const der = Buffer.concat([
    Buffer.from("302e020100300506032b657004220420", "hex"),
    keypair.secretKey.subarray(0, 32),
  ]);
  const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  return { address: keypair.publicKey.toBase58(), signature: new Uint8Array(sign(null, message, key)) };
};
const addr = () => Keypair.generate().publicKey.toBase58();
const blockhash = Keypair.generate().publicKey.toBase58();
/** A SOL payout from `vault` to a fresh address, paid by `gas`. */
const solPayout = (vault: Keypair, gas: Keypair, amount: bigint) =>
  buildSolanaTransfer({
    asset: SOL_ASSET,
    source: vault.publicKey.toBase58(),
    destination: addr(),
    gasWallet: gas.publicKey.toBase58(),
    amount,
    recentBlockhash: blockhash,
  });
const suiAddr = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

describe("Solana builders", () => {
  it("builds a token sweep paid by the gas wallet", () => {
    const gas = addr();
    const bytes = buildSolanaSweep({
      asset: addr(),
      depositOwner: addr(),
      vault: addr(),
      gasWallet: gas,
      amount: 1_500_000n,
      decimals: 6,
      recentBlockhash: blockhash,
      closeDepositAccount: true,
      computeUnitLimit: 50_000,
    });
    const message = VersionedMessage.deserialize(bytes);
    expect(message.staticAccountKeys[0]?.toBase58()).toBe(gas);
    expect(message.header.numRequiredSignatures).toBe(2);
    expect(message.compiledInstructions).toHaveLength(3);
  });

  it("builds a SOL payout and assembles a wire transaction", () => {
    const vault = Keypair.generate();
    const gas = Keypair.generate();
    const bytes = solPayout(vault, gas, 5n);
    const wire = solanaWireTransaction(bytes, [detached(gas, bytes), detached(vault, bytes)]);
    expect(wire.length).toBe(1 + 2 * 64 + bytes.length);
    // Every signature is verified, so a wrong one cannot slip onto the wire: a missing one, one
    // by the right key over other bytes, one altered by a bit.
    expect(() => solanaWireTransaction(bytes, [detached(gas, bytes), detached(gas, bytes)])).toThrow();
    const other = solPayout(vault, gas, 6n);
    expect(() => solanaWireTransaction(bytes, [detached(gas, bytes), detached(vault, other)])).toThrow(
      /does not verify/,
    );
    const flipped = detached(vault, bytes);
    flipped.signature = Uint8Array.from(flipped.signature);
    flipped.signature[10]! ^= 1;
    expect(() => solanaWireTransaction(bytes, [detached(gas, bytes), flipped])).toThrow(/does not verify/);
  });
});

describe("solanaWireTransaction", () => {
  /** web3.js's assembly of the same transaction: the reference the wire bytes must equal. */
  function web3Wire(bytes: Uint8Array, signatures: { address: string; signature: Uint8Array }[]) {
    const tx = Transaction.populate(Message.from(bytes));
    for (const { address, signature } of signatures)
      tx.addSignature(new PublicKey(address), Buffer.from(signature));
    return new Uint8Array(tx.serialize({ verifySignatures: true }));
  }

  it("lays out exactly what web3.js does, whatever order the signatures come in", () => {
    const gas = Keypair.generate();
    const deposit = Keypair.generate();
    const vault = Keypair.generate();
    const messages = [
      buildSolanaSweep({
        asset: addr(),
        depositOwner: deposit.publicKey.toBase58(),
        vault: addr(),
        gasWallet: gas.publicKey.toBase58(),
        amount: 1_500_000n,
        decimals: 6,
        recentBlockhash: blockhash,
        closeDepositAccount: true,
        computeUnitLimit: 50_000,
        computeUnitPriceMicroLamports: 1_000n,
      }),
      buildSolanaSweep({
        asset: SOL_ASSET,
        depositOwner: deposit.publicKey.toBase58(),
        vault: addr(),
        gasWallet: gas.publicKey.toBase58(),
        amount: 7n,
        recentBlockhash: blockhash,
      }),
      buildSolanaTransfer({
        asset: addr(),
        source: vault.publicKey.toBase58(),
        destination: addr(),
        gasWallet: gas.publicKey.toBase58(),
        amount: 99n,
        decimals: 6,
        recentBlockhash: blockhash,
        nonceAccount: addr(),
      }),
    ];
    const signersOf = [
      [gas, deposit],
      [gas, deposit],
      [gas, vault],
    ];
    messages.forEach((bytes, index) => {
      const signatures = signersOf[index]!.map((keypair) => detached(keypair, bytes));
      const wire = solanaWireTransaction(bytes, signatures);
      expect(Buffer.from(wire).equals(Buffer.from(web3Wire(bytes, signatures)))).toBe(true);
      expect(
        Buffer.from(solanaWireTransaction(bytes, [...signatures].reverse())).equals(Buffer.from(wire)),
      ).toBe(true);
    });
  });

  it("refuses a signature by a key that is not a signer, and a message too short for its header", () => {
    const gas = Keypair.generate();
    const vault = Keypair.generate();
    const bytes = solPayout(vault, gas, 5n);
    const stranger = Keypair.generate();
    expect(() =>
      solanaWireTransaction(bytes, [detached(gas, bytes), detached(vault, bytes), detached(stranger, bytes)]),
    ).toThrow(/is not a signer/);
    expect(() => solanaWireTransaction(bytes.subarray(0, 20), [detached(gas, bytes)])).toThrow(
      /do not agree/,
    );
    expect(() => solanaWireTransaction(new Uint8Array(0), [])).toThrow(/empty/);
  });
});

describe("Sui builders", () => {
  it("encodes a coin object whose digest matches its reference and parses with the SDK", () => {
    const { bcs: bytes, ref } = encodeSuiCoinObject({
      objectId: suiAddr(7),
      version: 12n,
      owner: suiAddr(1),
      coinType: "0xabc::usdc::USDC",
      balance: 42n,
    });
    expect(ref.digest).toBe(suiObjectDigest(bytes));
    const parsed = bcs.Object.parse(bytes);
    expect(parsed.owner.AddressOwner).toBe(suiAddr(1));
    expect(parsed.data.Move?.type.Coin).toBe(`0x${"abc".padStart(64, "0")}::usdc::USDC`);
    const sui = bcs.Object.parse(
      encodeSuiCoinObject({
        objectId: suiAddr(8),
        version: 1n,
        owner: suiAddr(1),
        coinType: SUI_COIN_TYPE,
        balance: 1n,
      }).bcs,
    );
    expect(sui.data.Move?.type.$kind).toBe("GasCoin");
  });

  it("builds a sponsored sweep: merge, split, transfer to the vault", async () => {
    const coins = [1, 2].map((n) =>
      encodeSuiCoinObject({
        objectId: suiAddr(100 + n),
        version: 3n,
        owner: suiAddr(1),
        coinType: SUI_COIN_TYPE,
        balance: 10n,
      }),
    );
    const gasCoin = encodeSuiCoinObject({
      objectId: suiAddr(200),
      version: 3n,
      owner: suiAddr(9),
      coinType: SUI_COIN_TYPE,
      balance: 10n ** 9n,
    });
    const bytes = await buildSuiSweep({
      depositAddress: suiAddr(1),
      vault: suiAddr(2),
      coins: coins.map((c) => ({ ...c.ref, balance: 10n })),
      amount: 15n,
      gas: { gasOwner: suiAddr(9), payment: [gasCoin.ref], price: 1000n, budget: 5_000_000n },
    });
    const data = bcs.TransactionData.parse(bytes).V1!;
    expect(data.sender).toBe(suiAddr(1));
    expect(data.gasData.owner).toBe(suiAddr(9));
    expect(data.kind.ProgrammableTransaction?.commands.map((c) => c.$kind)).toEqual([
      "MergeCoins",
      "SplitCoins",
      "TransferObjects",
    ]);
  });
});
