// ed25519 through node:crypto (OpenSSL), far faster than a pure-JS implementation.
// Private keys live only inside KeyObjects built from the 32-byte seed.
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface Ed25519Key {
  readonly privateKey: KeyObject;
  readonly publicKey: Uint8Array;
}

// A JWK import takes OpenSSL's raw-key path, faster than decoding PKCS#8 (derivation is on the
// deposit path). OpenSSL builds the key from `d` alone and computes
// the public key itself: the placeholder `x` is never used, and the public key we hand
// out is read back from the imported key, so it always matches what signs.
const PLACEHOLDER_X = Buffer.alloc(32).toString("base64url");

export function ed25519FromSeed(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new Error("ed25519 seed must be 32 bytes");
  const privateKey = createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(seed).toString("base64url"), x: PLACEHOLDER_X },
    format: "jwk",
  });
  const x = privateKey.export({ format: "jwk" }).x;
  if (!x) throw new Error("ed25519 key without a public part");
  return { privateKey, publicKey: new Uint8Array(Buffer.from(x, "base64url")) };
}

export function ed25519PublicKeyObject(publicKey: Uint8Array): KeyObject {
  if (publicKey.length !== 32) throw new Error("ed25519 public key must be 32 bytes");
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
}

export function ed25519Sign(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  // The Buffer itself (a Uint8Array): a copy would be one more backing store per signature.
  return sign(null, message, privateKey);
}

export function ed25519Verify(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  return verify(null, message, publicKey, signature);
}
