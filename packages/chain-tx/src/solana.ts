// Unsigned Solana transactions in exactly the shapes the signer accepts. Each builder
// returns the serialized message (the bytes that get signed); add the signer's
// signatures with `solanaWireTransaction` to get bytes for sendRawTransaction.

import { createHash, createPublicKey, verify } from "node:crypto";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  ComputeBudgetProgram,
  NONCE_ACCOUNT_LENGTH,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
} from "@solana/web3.js";
import { flatCopy, recentCache } from "./recent-cache.js";
import { compactU16, compileLegacyMessage } from "./solana-message.js";

/** The asset name for native SOL; any other asset is an SPL mint address. */
export const SOL_ASSET = "SOL";

export interface SolanaComputeBudget {
  computeUnitLimit?: number;
  computeUnitPriceMicroLamports?: bigint;
  /**
   * Spend a durable nonce instead of a recent blockhash: the transaction then never expires,
   * and landing (or failing) advances the nonce so it can never land again. `recentBlockhash`
   * must be the nonce's current value. The signer requires one for refunds and payouts.
   */
  nonceAccount?: string;
}

/** One amount of one asset, moved in a transaction the gas wallet pays for. */
interface SolanaMovement extends SolanaComputeBudget {
  /** An SPL mint (base58) or "SOL". */
  asset: string;
  gasWallet: string;
  amount: bigint;
  /** The mint's decimals; required for SPL tokens (transferChecked). */
  decimals?: number;
  recentBlockhash: string;
}

export interface SolanaSweepInput extends SolanaMovement {
  /** The deposit address (the token account owner for SPL tokens). */
  depositOwner: string;
  vault: string;
  /** SPL only: close the deposit token account afterwards, rent to the gas wallet. */
  closeDepositAccount?: boolean;
}

export interface SolanaTransferInput extends SolanaMovement {
  /** The vault, which holds the funds. */
  source: string;
  /** The receiving wallet (owner of the token account for SPL tokens). */
  destination: string;
  /** SPL only: create the destination's token account if missing (idempotent). Default true. */
  createDestinationAccount?: boolean;
}

export class ChainTxError extends Error {
  override readonly name = "ChainTxError";
}

function computeBudget(input: SolanaComputeBudget & { gasWallet: string }): TransactionInstruction[] {
  const instructions: TransactionInstruction[] = [];
  // The runtime recognises a durable-nonce transaction by its first instruction.
  if (input.nonceAccount !== undefined) {
    instructions.push(
      SystemProgram.nonceAdvance({
        noncePubkey: new PublicKey(input.nonceAccount),
        authorizedPubkey: new PublicKey(input.gasWallet),
      }),
    );
  }
  if (input.computeUnitLimit !== undefined) {
    instructions.push(ComputeBudgetProgram.setComputeUnitLimit({ units: input.computeUnitLimit }));
  }
  if (input.computeUnitPriceMicroLamports !== undefined) {
    instructions.push(
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: input.computeUnitPriceMicroLamports }),
    );
  }
  return instructions;
}

function decimalsOf(input: { decimals?: number }): number {
  if (input.decimals === undefined) throw new ChainTxError("decimals are required for SPL token transfers");
  return input.decimals;
}

function message(
  feePayer: string,
  recentBlockhash: string,
  instructions: TransactionInstruction[],
): Uint8Array {
  return compileLegacyMessage(new PublicKey(feePayer), recentBlockhash, instructions);
}

// Finding the canonical bump costs curve arithmetic in JS (about a millisecond); vault
// and gas accounts recur in every transaction, so remember recent answers. Keyed by the base58
// texts callers hold, so a repeat builds no PublicKey and encodes nothing.
interface TokenAccount {
  address: PublicKey;
  /** `address` in base58, flat (flatCopy): callers keep it. */
  text: string;
}
const ataCache = recentCache<TokenAccount>(1024);

function ataOf(mint: string, owner: string): TokenAccount {
  const id = `${owner}/${mint}`;
  const known = ataCache.get(id);
  if (known) return known;
  const address = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
  return ataCache.remember(flatCopy(id), { address, text: flatCopy(address.toBase58()) });
}

/** The associated token account of `owner` for `mint` (off-curve owners allowed), as a flat
 * string: callers keep it (flatCopy). */
export function associatedTokenAddress(owner: string, mint: string): string {
  return ataOf(mint, owner).text;
}

export function buildSolanaSweep(input: SolanaSweepInput): Uint8Array {
  const moves = movement(input, input.depositOwner, input.vault, {
    closeSource: input.closeDepositAccount ?? false,
  });
  return message(input.gasWallet, input.recentBlockhash, [...computeBudget(input), ...moves]);
}

/** A refund or a payout: the same shape, from the vault. */
export function buildSolanaTransfer(input: SolanaTransferInput): Uint8Array {
  const moves = movement(input, input.source, input.destination, {
    createDestination: input.createDestinationAccount ?? true,
  });
  return message(input.gasWallet, input.recentBlockhash, [...computeBudget(input), ...moves]);
}

/**
 * The amount from `from` to `to`: a system transfer of SOL, or a checked transfer between their
 * associated token accounts, with the destination's account created first (idempotent) or the
 * emptied source account closed after (rent to the gas wallet) when asked.
 */
function movement(
  input: SolanaMovement,
  fromOwner: string,
  toOwner: string,
  spl: { createDestination?: boolean; closeSource?: boolean },
): TransactionInstruction[] {
  const from = new PublicKey(fromOwner);
  const to = new PublicKey(toOwner);
  if (input.asset === SOL_ASSET) {
    return [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: input.amount })];
  }
  const gas = new PublicKey(input.gasWallet);
  const mint = new PublicKey(input.asset);
  const source = ataOf(input.asset, fromOwner).address;
  const destination = ataOf(input.asset, toOwner).address;
  return [
    ...(spl.createDestination
      ? [createAssociatedTokenAccountIdempotentInstruction(gas, destination, to, mint)]
      : []),
    createTransferCheckedInstruction(source, mint, destination, from, input.amount, decimalsOf(input)),
    ...(spl.closeSource ? [createCloseAccountInstruction(source, gas, from)] : []),
  ];
}

/** What a nonce account holds: the rent-exempt minimum for its 80 bytes (the signer's bound too). */
export const NONCE_ACCOUNT_LAMPORTS = 1_447_680n;

/** Seed of the gas wallet's nonce account `index` (the signer derives the same address). */
export const nonceAccountSeed = (index: number) => `nonce:${index}`;

/** The address of the gas wallet's durable nonce account `index`. */
export function solanaNonceAccountAddress(gasWallet: string, index: number): string {
  return createWithSeedSync(new PublicKey(gasWallet), nonceAccountSeed(index)).toBase58();
}

function createWithSeedSync(base: PublicKey, seed: string): PublicKey {
  return new PublicKey(
    createHash("sha256")
      .update(base.toBuffer())
      .update(seed)
      .update(SystemProgram.programId.toBuffer())
      .digest(),
  );
}

/** Creates nonce account `index`, paid by the gas wallet and with it as the nonce's authority. */
export function buildSolanaNonceAccount(input: {
  gasWallet: string;
  index: number;
  lamports: bigint;
  recentBlockhash: string;
}): Uint8Array {
  const gas = new PublicKey(input.gasWallet);
  const nonce = createWithSeedSync(gas, nonceAccountSeed(input.index));
  return message(input.gasWallet, input.recentBlockhash, [
    SystemProgram.createAccountWithSeed({
      fromPubkey: gas,
      newAccountPubkey: nonce,
      basePubkey: gas,
      seed: nonceAccountSeed(input.index),
      lamports: Number(input.lamports),
      space: NONCE_ACCOUNT_LENGTH,
      programId: SystemProgram.programId,
    }),
    SystemProgram.nonceInitialize({ noncePubkey: nonce, authorizedPubkey: gas }),
  ]);
}

export interface DetachedSignature {
  address: string;
  signature: Uint8Array;
}

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Puts signatures on a message from the builders: the bytes for sendRawTransaction, which are the
 * signature count, the signatures in the order of the message's signing keys, then the message
 * exactly as signed. Assembled straight from those bytes: web3.js's way (`Transaction.populate`,
 * then `serialize`) decoded the message and compiled it again, base58 included. Every signature
 * is checked against the message that goes on the wire, so a wrong one never leaves, with node's
 * Ed25519 (OpenSSL) rather than web3.js's pure-JavaScript check.
 */
export function solanaWireTransaction(messageBytes: Uint8Array, signatures: DetachedSignature[]): Uint8Array {
  const signers = signingKeys(messageBytes);
  const placed = new Array<Uint8Array | undefined>(signers.length);
  for (const { address, signature } of signatures) {
    const key = new PublicKey(address).toBytes();
    const at = signers.findIndex((signer) => Buffer.compare(signer, key) === 0);
    if (at < 0) throw new Error(`${address} is not a signer of the message`);
    if (signature.length !== 64) throw new Error(`the signature of ${address} is not 64 bytes`);
    placed[at] = signature;
  }
  const count = compactU16(signers.length);
  const wire = new Uint8Array(count.length + 64 * signers.length + messageBytes.length);
  wire.set(count, 0);
  signers.forEach((signer, index) => {
    const signature = placed[index];
    const address = () => new PublicKey(signer).toBase58();
    if (!signature) throw new Error(`the signature of ${address()} is missing`);
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, signer]),
      format: "der",
      type: "spki",
    });
    if (!verify(null, messageBytes, key, signature))
      throw new Error(`the signature of ${address()} does not verify against the message`);
    wire.set(signature, count.length + 64 * index);
  });
  wire.set(messageBytes, count.length + 64 * signers.length);
  return wire;
}

/**
 * The keys that must sign a message, in order: the first `numRequiredSignatures` of its account
 * keys. A legacy message starts with its header; a versioned one with 0x80 | version first.
 */
function signingKeys(message: Uint8Array): Uint8Array[] {
  let at = (message[0] ?? 0) & 0x80 ? 1 : 0;
  const required = message[at];
  if (required === undefined) throw new ChainTxError("the message is empty");
  at += 3;
  const [keyCount, size] = readCompactU16(message, at);
  at += size;
  if (required > keyCount || at + 32 * keyCount > message.length)
    throw new ChainTxError("the message's header and account keys do not agree");
  return Array.from({ length: required }, (_, index) =>
    message.subarray(at + 32 * index, at + 32 * (index + 1)),
  );
}

function readCompactU16(bytes: Uint8Array, offset: number): [value: number, size: number] {
  let value = 0;
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size];
    if (byte === undefined) throw new ChainTxError("the message ends inside a length");
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) return [value, size + 1];
  }
  throw new ChainTxError("a length in the message is longer than three bytes");
}
