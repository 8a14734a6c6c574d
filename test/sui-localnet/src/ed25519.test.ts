import { randomBytes } from "node:crypto";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { fromBase64 } from "@mysten/sui/utils";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import { describe, expect, it } from "vitest";
import { ed25519Key, ed25519Signer, signTransactionEd25519, suiAddressOf } from "./ed25519.js";

const transaction = new Uint8Array(randomBytes(180));

describe("Ed25519 transaction signatures with node's crypto", () => {
  it("signs exactly as the SDK does, and names the same signer", async () => {
    const seed = new Uint8Array(randomBytes(32));
    const sdk = Ed25519Keypair.fromSecretKey(seed);
    const ours = ed25519Key(seed);
    expect(suiAddressOf(ours.publicKey)).toBe(sdk.toSuiAddress());
    const signature = signTransactionEd25519(ours, transaction);
    const { signature: sdkSignature } = await sdk.signTransaction(transaction);
    expect(Buffer.from(signature).toString("base64")).toBe(sdkSignature);
    expect(ed25519Signer(transaction, signature)).toBe(sdk.toSuiAddress());
    expect((await verifyTransactionSignature(transaction, sdkSignature)).toSuiAddress()).toBe(
      sdk.toSuiAddress(),
    );
  });

  it("refuses a signature over other bytes or altered, and leaves other schemes to the SDK", async () => {
    const signer = ed25519Key(new Uint8Array(randomBytes(32)));
    const signature = signTransactionEd25519(signer, transaction);
    const other = Uint8Array.from(transaction);
    other[0]! ^= 1;
    expect(() => ed25519Signer(other, signature)).toThrow(/does not verify/);
    const altered = Uint8Array.from(signature);
    altered[20]! ^= 1;
    expect(() => ed25519Signer(transaction, altered)).toThrow(/does not verify/);
    const { signature: secp } = await new Secp256k1Keypair().signTransaction(transaction);
    expect(ed25519Signer(transaction, fromBase64(secp))).toBeNull();
  });

  it("verifies a key that signs again with the key object it kept, and never another key's", () => {
    const a = ed25519Key(new Uint8Array(randomBytes(32)));
    const b = ed25519Key(new Uint8Array(randomBytes(32)));
    const byA = signTransactionEd25519(a, transaction);
    const byB = signTransactionEd25519(b, transaction);
    expect(ed25519Signer(transaction, byA)).toBe(suiAddressOf(a.publicKey));
    expect(ed25519Signer(transaction, byB)).toBe(suiAddressOf(b.publicKey));
    expect(ed25519Signer(transaction, byA)).toBe(suiAddressOf(a.publicKey));
    // B's signature presented under A's (kept) public key.
    const forged = Uint8Array.from(byB);
    forged.set(a.publicKey, 65);
    expect(() => ed25519Signer(transaction, forged)).toThrow(/does not verify/);
  });
});
