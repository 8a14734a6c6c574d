// Sui in the signer: ed25519 keys at m/44'/784'/<branch>'/0'/<index>', coin types as the asset.
// Coin inputs are references: their contents come with the request, trusted only when they hash
// to the reference's digest, and the commands run over their balances to learn what reaches whom.
import { Chain, RefusalCode, type SignRequest } from "@gateway/signer-proto";
import { bcs } from "@mysten/sui/bcs";
import { isValidSuiAddress, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type CoinInfo, readCoin, suiObjectDigest } from "../codecs/sui-object.js";
import { invalid, refuse } from "../refusal.js";
import type { SignerIntent, SignerLimits } from "../vocabulary.js";
import type { CheckedTransaction, Parties, SignerChain } from "./signer-chain.js";

const blake2b256 = (...parts: Uint8Array[]) => blake2b(Buffer.concat(parts), { dkLen: 32 });

export const sui: SignerChain<"sui"> = {
  name: "sui",
  proto: Chain.SUI,
  coinType: 784,
  path: [0],
  // BLAKE2b-256 over the scheme flag 0x00 and the key.
  address: (publicKey) => `0x${bytesToHex(blake2b256(Buffer.alloc(1), publicKey))}`,
  canonicalAddress: (value, what) =>
    isValidSuiAddress(value) ? normalizeSuiAddress(value) : invalid(`${what} is not a Sui address`),
  canonicalAsset(value) {
    try {
      return normalizeStructTag(value);
    } catch {
      invalid("asset is not a Sui coin type");
    }
  },
  spellAddress: normalizeSuiAddress,
  configAsset(value) {
    try {
      return normalizeStructTag(value);
    } catch {
      throw new Error(`${value} is not a Sui coin type`);
    }
  },
  check: checkSuiTransaction,
  // BLAKE2b-256 of the intent message: three zero bytes (TransactionData scope, V0, Sui app), then
  // the transaction.
  sign(key, transaction) {
    const signature = key.sign(blake2b256(Buffer.alloc(3), transaction));
    const serialized = Buffer.concat([Buffer.from([0]), signature, key.publicKey]).toString("base64");
    return { address: key.address, signature, serialized };
  },
  // The digest of the transaction's bytes.
  txid: (transaction) => blake2b256(Buffer.from("TransactionData::"), transaction),
  defaultGasBudget: 1_000_000_000_000n,
};

type Value =
  | { type: "coin"; coin: { balance: bigint; moved: boolean } }
  | { type: "pure"; bytes: Uint8Array }
  | { type: "split"; coins: { balance: bigint; moved: boolean }[] };

/**
 * Signers are the sender, then the gas owner. Every owned object the transaction spends (coins
 * and the sponsor's gas coins, at their versions) is a lock: a version spent by one intent's
 * transaction is never signed into another's, so the signer never equivocates.
 */
export function checkSuiTransaction(
  { unsignedTransaction: bytes, objects }: SignRequest,
  intent: SignerIntent,
  parties: Parties,
  limits: SignerLimits,
): CheckedTransaction {
  const tx = parseTransaction(bytes);
  const ptb = tx.kind.ProgrammableTransaction;
  if (!ptb) refuse(RefusalCode.UNEXPECTED_PROGRAM, "only programmable transactions are allowed");
  if (normalizeSuiAddress(tx.sender) !== parties.source)
    refuse(RefusalCode.WRONG_SENDER, `the sender must be ${parties.source}`);
  if (normalizeSuiAddress(tx.gasData.owner) !== parties.gas)
    refuse(RefusalCode.WRONG_GAS_OWNER, "the gas owner must be the gas wallet");
  if (BigInt(tx.gasData.budget) > limits.maxSuiGasBudget)
    refuse(RefusalCode.FEE_OVER_CAP, `gas budget ${tx.gasData.budget} is over the cap`);
  if (BigInt(tx.gasData.price) > limits.maxSuiGasPrice)
    refuse(RefusalCode.GAS_PRICE_OVER_CAP, `gas price ${tx.gasData.price} is over the cap`);
  const locks = tx.gasData.payment.map(objectLock);
  const provided = new Map<string, Uint8Array>();
  for (const { bcs: object } of objects) provided.set(suiObjectDigest(object), object);
  const inputs = ptb.inputs.map((input): Value => {
    if (input.Pure) return { type: "pure", bytes: Uint8Array.from(Buffer.from(input.Pure.bytes, "base64")) };
    const ref = input.Object?.ImmOrOwnedObject;
    if (!ref) refuse(RefusalCode.UNSUPPORTED_FEATURE, `input kind ${input.$kind} is not allowed`);
    const contents = provided.get(ref.digest);
    if (!contents)
      refuse(RefusalCode.OBJECT_MISMATCH, `no object contents match the digest of ${ref.objectId}`);
    let coin: CoinInfo | undefined;
    try {
      coin = readCoin(contents);
    } catch {
      refuse(RefusalCode.OBJECT_MISMATCH, `object ${ref.objectId} does not decode`);
    }
    if (!coin) refuse(RefusalCode.WRONG_ASSET, `object ${ref.objectId} is not a coin`);
    if (coin.objectId !== normalizeSuiAddress(ref.objectId) || coin.version !== String(ref.version))
      refuse(RefusalCode.OBJECT_MISMATCH, `object contents are not those of ${ref.objectId}`);
    if (coin.owner !== parties.source)
      refuse(RefusalCode.WRONG_SOURCE, `coin ${ref.objectId} is not the sender's`);
    if (coin.coinType !== intent.asset)
      refuse(RefusalCode.WRONG_ASSET, `coin ${ref.objectId} is ${coin.coinType}`);
    locks.push(objectLock(ref));
    return { type: "coin", coin: { balance: coin.balance, moved: false } };
  });
  const flow: Flow = { inputs, results: [], transferred: 0n, transfers: 0 };
  for (const command of ptb.commands) runCommand(command, flow, parties.destination);
  if (flow.transfers === 0 || flow.transferred !== intent.amount)
    refuse(RefusalCode.WRONG_AMOUNT, `transfers ${flow.transferred}, the intent says ${intent.amount}`);
  return { signers: [parties.source, parties.gas], locks, worstCaseFee: BigInt(tx.gasData.budget) };
}

function parseTransaction(bytes: Uint8Array) {
  let data: ReturnType<typeof bcs.TransactionData.parse>;
  try {
    data = bcs.TransactionData.parse(bytes);
    // Trailing bytes would be signed too without being what we checked.
    if (bcs.TransactionData.serialize(data).toBytes().length !== bytes.length)
      throw new Error("trailing bytes");
  } catch {
    refuse(RefusalCode.MALFORMED_TRANSACTION, "not a Sui TransactionData");
  }
  if (!data.V1) refuse(RefusalCode.MALFORMED_TRANSACTION, "unknown TransactionData version");
  return data.V1;
}

const objectLock = (ref: { objectId: string; version: string | number }) =>
  `sui-object:${normalizeSuiAddress(ref.objectId)}@${ref.version}`;

/** The commands run so far, symbolically: each command's result and what reached the recipient. */
type Flow = { inputs: Value[]; results: (Value | undefined)[]; transferred: bigint; transfers: number };

function runCommand(command: typeof bcs.Command.$inferType, flow: Flow, destination: string): void {
  if (command.SplitCoins) {
    const coin = coinOf(flow, command.SplitCoins.coin);
    const coins = command.SplitCoins.amounts.map((arg) => {
      const amount = new DataView(pureOf(flow, arg, 8, "split amount").buffer).getBigUint64(0, true);
      if (amount > coin.balance) refuse(RefusalCode.WRONG_AMOUNT, "split exceeds the coin's balance");
      coin.balance -= amount;
      return { balance: amount, moved: false };
    });
    flow.results.push({ type: "split", coins });
  } else if (command.MergeCoins) {
    const target = coinOf(flow, command.MergeCoins.destination);
    for (const arg of command.MergeCoins.sources) {
      const source = coinOf(flow, arg);
      if (source === target) refuse(RefusalCode.MALFORMED_TRANSACTION, "a coin merged into itself");
      target.balance += source.balance;
      source.balance = 0n;
      source.moved = true;
    }
    flow.results.push(undefined);
  } else if (command.TransferObjects) {
    const recipient = normalizeSuiAddress(
      Buffer.from(pureOf(flow, command.TransferObjects.address, 32, "recipient")).toString("hex"),
    );
    if (recipient !== destination)
      refuse(RefusalCode.WRONG_DESTINATION, "coins go to another address than the intent's");
    for (const arg of command.TransferObjects.objects) {
      const coin = coinOf(flow, arg);
      flow.transferred += coin.balance;
      coin.moved = true;
    }
    flow.transfers += 1;
    flow.results.push(undefined);
  } else {
    refuse(RefusalCode.UNEXPECTED_PROGRAM, `command ${command.$kind} is not allowed`);
  }
}

function resolve({ inputs, results }: Flow, arg: ArgumentShape): Value {
  if (arg.GasCoin) refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "the sponsor's gas coin may not be used");
  let value: Value | undefined;
  if (arg.Input !== undefined && arg.Input !== null) value = inputs[arg.Input];
  else if (arg.Result !== undefined && arg.Result !== null) {
    value = results[arg.Result];
    // Result(i) of a split stands for its only coin.
    if (value?.type === "split")
      value = value.coins.length === 1 ? { type: "coin", coin: value.coins[0]! } : undefined;
  } else if (arg.NestedResult) {
    const [command, index] = arg.NestedResult;
    const split = results[command];
    const coin = split?.type === "split" ? split.coins[index] : undefined;
    value = coin ? { type: "coin", coin } : undefined;
  }
  if (!value) refuse(RefusalCode.MALFORMED_TRANSACTION, "argument refers to nothing");
  return value;
}

function coinOf(flow: Flow, arg: ArgumentShape) {
  const value = resolve(flow, arg);
  if (value.type !== "coin") refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "a coin argument is not a coin");
  if (value.coin.moved) refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "a coin is used after it moved");
  return value.coin;
}

function pureOf(flow: Flow, arg: ArgumentShape, length: number, what: string) {
  const value = resolve(flow, arg);
  if (value.type !== "pure" || value.bytes.length !== length)
    refuse(RefusalCode.UNEXPECTED_INSTRUCTION, `${what} is not a plain value`);
  return value.bytes;
}

type ArgumentShape = {
  GasCoin?: true | null;
  Input?: number | null;
  Result?: number | null;
  NestedResult?: [number, number] | null;
};
