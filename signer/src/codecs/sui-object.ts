// Reading Sui objects: the object digest the signer checks a coin's contents against, and the
// fields of a Coin object (id, version, owner, type, balance) from its BCS.
import { bcs } from "@mysten/sui/bcs";
import { normalizeStructTag, normalizeSuiAddress, SUI_TYPE_ARG, toBase58 } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";

const SUI_COIN_TYPE = normalizeStructTag(SUI_TYPE_ARG);
const OBJECT_PREFIX = new TextEncoder().encode("Object::");

/** Sui's object digest: BLAKE2b-256 over "Object::" || BCS(Object). */
export function suiObjectDigest(objectBcs: Uint8Array): string {
  const input = new Uint8Array(OBJECT_PREFIX.length + objectBcs.length);
  input.set(OBJECT_PREFIX);
  input.set(objectBcs, OBJECT_PREFIX.length);
  return toBase58(blake2b(input, { dkLen: 32 }));
}

export interface CoinInfo {
  objectId: string;
  version: string;
  owner: string;
  coinType: string;
  balance: bigint;
}

/** Parses a Sui object's BCS into what the check needs; undefined when it is not a coin. */
export function readCoin(objectBcs: Uint8Array): CoinInfo | undefined {
  const object = bcs.Object.parse(objectBcs);
  const move = object.data.Move;
  if (!move) return undefined;
  let coinType: string;
  if (move.type.GasCoin) coinType = SUI_COIN_TYPE;
  else if (move.type.Coin) coinType = normalizeStructTag(move.type.Coin);
  else return undefined;
  const contents = Uint8Array.from(move.contents);
  if (contents.length !== 40) return undefined;
  const owner = object.owner.AddressOwner;
  return {
    objectId: normalizeSuiAddress(Buffer.from(contents.subarray(0, 32)).toString("hex")),
    version: String(move.version),
    owner: owner ? normalizeSuiAddress(owner) : "",
    coinType,
    balance: new DataView(contents.buffer).getBigUint64(32, true),
  };
}
