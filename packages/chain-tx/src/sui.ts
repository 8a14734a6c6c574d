// Unsigned Sui transactions in exactly the shapes the signer accepts, built offline
// (object references, gas price and budget come from the caller), plus the object
// encoding and digest the signer uses to trust a coin's type and owner.
import { bcs } from "@mysten/sui/bcs";
import { Inputs, Transaction } from "@mysten/sui/transactions";
import { normalizeStructTag, normalizeSuiAddress, toBase58 } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";

export const SUI_COIN_TYPE = "0x2::sui::SUI";

export interface SuiObjectRef {
  objectId: string;
  version: string | number | bigint;
  /** base58 */
  digest: string;
}

export interface SuiCoinRef extends SuiObjectRef {
  /** When every coin's balance is given and they add up to the amount, the merged coin moves whole. */
  balance?: bigint;
}

/** Gas paid by the service's gas wallet as sponsor. */
export interface SuiSponsorGas {
  gasOwner: string;
  payment: SuiObjectRef[];
  price: bigint;
  budget: bigint;
}

export interface SuiSweepInput {
  depositAddress: string;
  vault: string;
  /** The deposit's coins of the swept type. */
  coins: SuiCoinRef[];
  amount: bigint;
  gas: SuiSponsorGas;
}

export interface SuiTransferInput {
  /** The vault. */
  sender: string;
  recipient: string;
  /** The vault's coins of the type being sent. */
  coins: SuiCoinRef[];
  amount: bigint;
  gas: SuiSponsorGas;
}

export class SuiTxError extends Error {
  override readonly name = "SuiTxError";
}

async function buildMove(
  sender: string,
  recipient: string,
  coins: SuiCoinRef[],
  amount: bigint,
  gas: SuiSponsorGas,
) {
  const [first, ...rest] = coins;
  if (!first) throw new SuiTxError("at least one coin is needed");
  const tx = new Transaction();
  tx.setSender(sender);
  tx.setGasOwner(gas.gasOwner);
  tx.setGasPayment(gas.payment.map((ref) => ({ ...ref, version: String(ref.version) })));
  tx.setGasPrice(gas.price);
  tx.setGasBudget(gas.budget);
  const primary = tx.object(Inputs.ObjectRef({ ...first, version: String(first.version) }));
  if (rest.length > 0) {
    tx.mergeCoins(
      primary,
      rest.map((coin) => tx.object(Inputs.ObjectRef({ ...coin, version: String(coin.version) }))),
    );
  }
  const balances = coins.map((coin) => coin.balance);
  const total = balances.every((b) => b !== undefined)
    ? balances.reduce<bigint>((sum, b) => sum + (b ?? 0n), 0n)
    : undefined;
  if (total !== undefined && total < amount) throw new SuiTxError("coins hold less than the amount");
  if (total === amount) {
    tx.transferObjects([primary], recipient);
  } else {
    const [part] = tx.splitCoins(primary, [amount]);
    tx.transferObjects([part!], recipient);
  }
  return tx.build();
}

/** Sweep: sender is the deposit address, the gas wallet sponsors, the coins go to the vault. */
export function buildSuiSweep(input: SuiSweepInput): Promise<Uint8Array> {
  return buildMove(input.depositAddress, input.vault, input.coins, input.amount, input.gas);
}

/** Refund or payout: from the vault's coins to the recipient, sponsored by the gas wallet. */
export function buildSuiTransfer(input: SuiTransferInput): Promise<Uint8Array> {
  return buildMove(input.sender, input.recipient, input.coins, input.amount, input.gas);
}

/** Sui's object digest: BLAKE2b-256 over "Object::" and the BCS of the object. */
export function suiObjectDigest(objectBcs: Uint8Array): string {
  const prefix = new TextEncoder().encode("Object::");
  const input = new Uint8Array(prefix.length + objectBcs.length);
  input.set(prefix);
  input.set(objectBcs, prefix.length);
  return toBase58(blake2b(input, { dkLen: 32 }));
}

export interface SuiCoinObjectInput {
  objectId: string;
  version: bigint;
  owner: string;
  coinType: string;
  balance: bigint;
  /** base58 digest of the last transaction that touched it; any 32 bytes for a fixture. */
  previousTransaction?: string;
  storageRebate?: bigint;
}

/**
 * The BCS of a `Coin<T>` object and its reference, as a Sui node would serve them.
 * Local test networks use it to hand out coins whose digests the signer can check.
 */
export function encodeSuiCoinObject(input: SuiCoinObjectInput): {
  bcs: Uint8Array;
  ref: { objectId: string; version: string; digest: string };
} {
  const objectId = normalizeSuiAddress(input.objectId);
  const contents = new Uint8Array(40);
  contents.set(bcs.Address.serialize(objectId).toBytes());
  new DataView(contents.buffer).setBigUint64(32, input.balance, true);
  // Sui stores Coin<SUI> under its own type tag, GasCoin.
  const isSui = normalizeStructTag(input.coinType) === normalizeStructTag(SUI_COIN_TYPE);
  const bytes = bcs.Object.serialize({
    data: {
      Move: {
        type: isSui ? { GasCoin: true } : { Coin: input.coinType },
        hasPublicTransfer: true,
        version: input.version,
        contents,
      },
    },
    owner: { AddressOwner: input.owner },
    previousTransaction: input.previousTransaction ?? toBase58(new Uint8Array(32)),
    storageRebate: input.storageRebate ?? 0n,
  }).toBytes();
  return { bcs: bytes, ref: { objectId, version: input.version.toString(), digest: suiObjectDigest(bytes) } };
}
