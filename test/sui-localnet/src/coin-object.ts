// Coins as Sui stores them: `0x2::coin::Coin<T>` Move objects whose contents are {id, balance},
// wrapped in the `Object` envelope whose BCS the object digest is computed over.
import { bcs } from "@mysten/sui/bcs";
import { normalizeStructTag } from "@mysten/sui/utils";
import { objectDigest } from "./digests.js";

export interface CoinObject {
  objectId: string;
  version: bigint;
  owner: string;
  /** Normalized type parameter T of `Coin<T>`. */
  coinType: string;
  balance: bigint;
  previousTransaction: string;
}

export interface StoredCoin extends CoinObject {
  digest: string;
  /** BCS of the whole `Object` (what the digest covers). */
  bcs: Uint8Array;
  /** BCS of the Move struct value `Coin<T>`. */
  contents: Uint8Array;
}

const SUI_TYPE = normalizeStructTag("0x2::sui::SUI");

const CoinContents = bcs.struct("Coin", {
  id: bcs.Address,
  balance: bcs.u64(),
});

export function coinObjectType(coinType: string): string {
  return normalizeStructTag(`0x2::coin::Coin<${coinType}>`);
}

export function coinContents(objectId: string, balance: bigint): Uint8Array {
  return CoinContents.serialize({ id: objectId, balance }).toBytes();
}

export function decodeCoinContents(contents: Uint8Array): { id: string; balance: bigint } {
  const parsed = CoinContents.parse(contents);
  return { id: parsed.id, balance: BigInt(parsed.balance) };
}

/** Serializes a coin the way a validator does and attaches its digest. */
export function storeCoin(coin: CoinObject): StoredCoin {
  const contents = coinContents(coin.objectId, coin.balance);
  // Coin<SUI> has its own compact MoveObjectType variant; every other coin is Coin(TypeTag).
  const type = coin.coinType === SUI_TYPE ? { GasCoin: true as const } : { Coin: coin.coinType };
  const objectBcs = bcs.Object.serialize({
    data: { Move: { type, hasPublicTransfer: true, version: coin.version, contents } },
    owner: { AddressOwner: coin.owner },
    previousTransaction: coin.previousTransaction,
    storageRebate: 0n,
  }).toBytes();
  return { ...coin, digest: objectDigest(objectBcs), bcs: objectBcs, contents };
}
