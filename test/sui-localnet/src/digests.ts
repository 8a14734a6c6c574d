// Sui's typed hashing: Blake2b-256 over "<TypeName>::" followed by the BCS bytes, shown in base58.

import { fromBase58, normalizeSuiAddress, toBase58, toHex } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";

export function hashTyped(typeName: string, bytes: Uint8Array): Uint8Array {
  const tag = new TextEncoder().encode(`${typeName}::`);
  const data = new Uint8Array(tag.length + bytes.length);
  data.set(tag);
  data.set(bytes, tag.length);
  return blake2b(data, { dkLen: 32 });
}

export function typedDigest(typeName: string, bytes: Uint8Array): string {
  return toBase58(hashTyped(typeName, bytes));
}

export const transactionDigest = (transactionDataBcs: Uint8Array): string =>
  typedDigest("TransactionData", transactionDataBcs);

export const objectDigest = (objectBcs: Uint8Array): string => typedDigest("Object", objectBcs);

export const effectsDigest = (effectsBcs: Uint8Array): string =>
  typedDigest("TransactionEffects", effectsBcs);

// Sui derives a created object's id from the creating transaction: Blake2b-256 over the
// RegularObjectId hashing scope (0xf0), the transaction digest and the creation counter (u64 LE).
export function deriveObjectId(txDigest: string, creationIndex: number): string {
  const data = new Uint8Array(1 + 32 + 8);
  data[0] = 0xf0;
  data.set(fromBase58(txDigest), 1);
  new DataView(data.buffer).setBigUint64(33, BigInt(creationIndex), true);
  return normalizeSuiAddress(toHex(blake2b(data, { dkLen: 32 })));
}
