// Ed25519 transaction signatures with node's crypto (OpenSSL) instead of the SDK's JavaScript
// curve arithmetic: verifying them was a third of the local network's busy CPU under the pipeline
// bench's live Sui load (bench/RESULTS-pipeline.md), and the bench's customers signed with it too.
// A Sui signature is flag (0x00 for Ed25519) ‖ 64-byte signature ‖ 32-byte public key, over
// blake2b-256 of the intent ([0, 0, 0] for a transaction) and the transaction's BCS bytes; the
// signer's address is blake2b-256 of flag ‖ public key.
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2.js";

const ED25519_FLAG = 0x00;
const SIGNATURE_LENGTH = 1 + 64 + 32;
const TRANSACTION_INTENT = Uint8Array.of(0, 0, 0);
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

function signedDigest(transaction: Uint8Array): Uint8Array {
  const intentMessage = new Uint8Array(TRANSACTION_INTENT.length + transaction.length);
  intentMessage.set(TRANSACTION_INTENT);
  intentMessage.set(transaction, TRANSACTION_INTENT.length);
  return blake2b(intentMessage, { dkLen: 32 });
}

export function suiAddressOf(publicKey: Uint8Array): string {
  const flagged = new Uint8Array(33);
  flagged[0] = ED25519_FLAG;
  flagged.set(publicKey, 1);
  return `0x${Buffer.from(blake2b(flagged, { dkLen: 32 })).toString("hex")}`;
}

/**
 * Node's key object for a public key, kept for the keys that sign again and again (the gas
 * wallet sponsors every sweep, the bench's customers pay from a pool): parsing the DER cost more
 * than verifying the signature. Emptied when full; a key signing once costs what it did.
 */
const publicKeys = new Map<string, KeyObject>();
const PUBLIC_KEYS_KEPT = 4096;
function publicKeyObject(publicKey: Uint8Array): KeyObject {
  const id = Buffer.from(publicKey).toString("hex");
  let key = publicKeys.get(id);
  if (!key) {
    if (publicKeys.size >= PUBLIC_KEYS_KEPT) publicKeys.clear();
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
    publicKeys.set(id, key);
  }
  return key;
}

/**
 * The address that signed `transaction` with this serialized Ed25519 signature; null when the
 * signature is not an Ed25519 one (the caller verifies other schemes its own way); throws when
 * it is one and does not verify.
 */
export function ed25519Signer(transaction: Uint8Array, signature: Uint8Array): string | null {
  if (signature.length !== SIGNATURE_LENGTH || signature[0] !== ED25519_FLAG) return null;
  const publicKey = signature.subarray(65);
  if (!verify(null, signedDigest(transaction), publicKeyObject(publicKey), signature.subarray(1, 65)))
    throw new Error("the Ed25519 signature does not verify against the transaction");
  return suiAddressOf(publicKey);
}

/** A signing key from the 32-byte seed, with its public key. */
export function ed25519Key(seed: Uint8Array): { key: KeyObject; publicKey: Uint8Array } {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const der = createPublicKey(key).export({ format: "der", type: "spki" });
  return { key, publicKey: new Uint8Array(der.subarray(SPKI_PREFIX.length)) };
}

/** The serialized signature of `transaction` (flag ‖ signature ‖ public key). */
export function signTransactionEd25519(
  signer: { key: KeyObject; publicKey: Uint8Array },
  transaction: Uint8Array,
): Uint8Array {
  const signature = new Uint8Array(SIGNATURE_LENGTH);
  signature[0] = ED25519_FLAG;
  signature.set(sign(null, signedDigest(transaction), signer.key), 1);
  signature.set(signer.publicKey, 65);
  return signature;
}
