// Decodes an unsigned Solana message and refuses it unless its effect is exactly the
// intent's: the allowed instructions, in the allowed shapes, between the allowed accounts.
import { createHash } from "node:crypto";
import { RefusalCode } from "@gateway/signer-proto";
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { ComputeBudgetProgram, PublicKey, SystemProgram } from "@solana/web3.js";
import { refuse } from "../refusal.js";
import { type SignerIntent, SOL_ASSET } from "./intent.js";
import { MessageFormatError, type ParsedMessage, parseSolanaMessage } from "./solana-message.js";

// Keys are compared as hex of their bytes: base58 encoding every account key would cost
// more than all the checks together.
const hexKey = (key: PublicKey) => key.toBuffer().toString("hex");
const SYSTEM = hexKey(SystemProgram.programId);
const TOKEN = hexKey(TOKEN_PROGRAM_ID);
const ATA = hexKey(ASSOCIATED_TOKEN_PROGRAM_ID);
const COMPUTE_BUDGET = hexKey(ComputeBudgetProgram.programId);

const hexCache = new Map<string, string>();
function hexOf(base58: string): string {
  let hex = hexCache.get(base58);
  if (hex === undefined) {
    hex = hexKey(new PublicKey(base58));
    if (hexCache.size >= 100_000) hexCache.delete(hexCache.keys().next().value!);
    hexCache.set(base58, hex);
  }
  return hex;
}

// Solana's defaults when no SetComputeUnitLimit is present.
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;

export interface SolanaParties {
  gas: string;
  /** The key whose funds move: the deposit address (sweep) or the vault (refund, payout). */
  source: string;
  /** The owner receiving the funds: the vault (sweep) or the intent's destination. */
  destination: string;
}

export interface SolanaCheckOptions {
  maxPriorityFeeLamports: bigint;
}

type Ix = ParsedMessage["instructions"][number];

function decode(bytes: Uint8Array): { signers: string[]; instructions: Ix[] } {
  let message: ParsedMessage;
  try {
    message = parseSolanaMessage(bytes);
  } catch (error) {
    refuse(
      RefusalCode.MALFORMED_TRANSACTION,
      error instanceof MessageFormatError ? error.message : "undecodable",
    );
  }
  if (message.addressTableLookups > 0) {
    refuse(RefusalCode.UNSUPPORTED_FEATURE, "address lookup tables cannot be checked offline");
  }
  if (new Set(message.keys).size !== message.keys.length) {
    refuse(RefusalCode.MALFORMED_TRANSACTION, "duplicate account keys");
  }
  return {
    signers: message.keys.slice(0, message.numRequiredSignatures),
    instructions: message.instructions,
  };
}

function u64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

const PDA_MARKER = Buffer.from("ProgramDerivedAddress");
const TOKEN_BYTES = TOKEN_PROGRAM_ID.toBuffer();
const ATA_BYTES = ASSOCIATED_TOKEN_PROGRAM_ID.toBuffer();

/**
 * Whether `account` is an associated token account address of `owner` for `mint`: a
 * program address of the ATA program from the seeds [owner, token program, mint] with
 * some bump. Checking by hashing avoids the curve arithmetic of finding the canonical
 * bump (milliseconds in JS). A non-canonical bump gives nothing to an attacker: only the
 * ATA program can create an account at such an address, and it only ever uses the
 * canonical bump, so a transfer there fails instead of paying someone else.
 */
// Vault and gas accounts recur in every transaction: remember addresses already matched.
const knownAssociated = new Set<string>();

function isAssociatedTokenAccount(account: string, owner: string, mint: string): boolean {
  const id = `${account}${owner}${mint}`;
  if (knownAssociated.has(id)) return true;
  const target = Buffer.from(account, "hex");
  const input = Buffer.concat([
    Buffer.from(owner, "hex"),
    TOKEN_BYTES,
    Buffer.from(mint, "hex"),
    Buffer.alloc(1),
    ATA_BYTES,
    PDA_MARKER,
  ]);
  for (let bump = 255; bump >= 0; bump--) {
    input[96] = bump;
    if (createHash("sha256").update(input).digest().equals(target)) {
      if (knownAssociated.size >= 100_000) knownAssociated.delete(knownAssociated.values().next().value!);
      knownAssociated.add(id);
      return true;
    }
  }
  return false;
}

function expectAccounts(ix: Ix, count: number, what: string): void {
  if (ix.accounts.length !== count) {
    refuse(RefusalCode.UNEXPECTED_INSTRUCTION, `${what} must have exactly ${count} accounts`);
  }
}

/** Returns the signer addresses the transaction needs (fee payer first). */
export function checkSolanaTransaction(
  bytes: Uint8Array,
  intent: SignerIntent,
  parties: SolanaParties,
  options: SolanaCheckOptions,
): string[] {
  const { signers, instructions } = decode(bytes);
  const party = {
    gas: hexOf(parties.gas),
    source: hexOf(parties.source),
    destination: hexOf(parties.destination),
  };
  if (signers[0] !== party.gas) refuse(RefusalCode.WRONG_FEE_PAYER, "the fee payer must be the gas wallet");
  const expectedSigners = [parties.gas, parties.source];
  if (signers.length !== 2 || !signers.includes(party.source)) {
    refuse(RefusalCode.UNEXPECTED_SIGNER, `signers must be exactly the gas wallet and ${parties.source}`);
  }

  const isSweep = intent.action.kind === "sweep";
  const native = intent.asset === SOL_ASSET;
  let unitLimit: bigint | undefined;
  let unitPrice: bigint | undefined;
  let transferred = false;
  let closed = false;
  let createdAta = false;
  let sourceAccount: string | undefined;

  for (const ix of instructions) {
    if (ix.program === COMPUTE_BUDGET) {
      if (transferred) refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "compute budget instructions come first");
      if (ix.accounts.length !== 0)
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "compute budget takes no accounts");
      if (ix.data[0] === 2 && ix.data.length === 5 && unitLimit === undefined) {
        unitLimit = BigInt(new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(1, true));
      } else if (ix.data[0] === 3 && ix.data.length === 9 && unitPrice === undefined) {
        unitPrice = u64(ix.data, 1);
      } else {
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only one unit limit and one unit price are allowed");
      }
      continue;
    }
    if (transferred && !(ix.program === TOKEN && ix.data[0] === 9)) {
      refuse(
        RefusalCode.UNEXPECTED_INSTRUCTION,
        "nothing but closing the deposit account may follow the transfer",
      );
    }
    if (native) {
      if (ix.program !== SYSTEM)
        refuse(RefusalCode.UNEXPECTED_PROGRAM, `program ${base58(ix.program)} is not allowed`);
      // SystemInstruction::Transfer is tag 2 (u32) then lamports (u64).
      if (
        ix.data.length !== 12 ||
        ix.data[0] !== 2 ||
        ix.data[1] !== 0 ||
        ix.data[2] !== 0 ||
        ix.data[3] !== 0
      ) {
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only a system transfer is allowed");
      }
      expectAccounts(ix, 2, "system transfer");
      if (ix.accounts[0] !== party.source)
        refuse(RefusalCode.WRONG_SOURCE, "transfer is not from the source");
      if (ix.accounts[1] !== party.destination) {
        refuse(RefusalCode.WRONG_DESTINATION, "transfer does not go to the intent's destination");
      }
      if (u64(ix.data, 4) !== intent.amount)
        refuse(RefusalCode.WRONG_AMOUNT, "amount differs from the intent");
      transferred = true;
      continue;
    }
    const mint = hexOf(intent.asset);
    if (ix.program === ATA) {
      // CreateIdempotent (tag 1) of the destination's account (the vault's, for a sweep),
      // paid by the gas wallet: it only ever creates an account the transfer then pays into.
      if (createdAta) refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only one token account may be created");
      if (ix.data.length !== 1 || ix.data[0] !== 1) {
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only the idempotent create is allowed");
      }
      expectAccounts(ix, 6, "create token account");
      const [payer, account, owner, ixMint, system, token] = ix.accounts;
      if (payer !== party.gas)
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "the gas wallet must pay for the account");
      if (ixMint !== mint) refuse(RefusalCode.WRONG_ASSET, "token account for another mint");
      if (owner !== party.destination || !isAssociatedTokenAccount(account!, party.destination, mint)) {
        refuse(RefusalCode.WRONG_DESTINATION, "token account for another owner");
      }
      if (system !== SYSTEM || token !== TOKEN)
        refuse(RefusalCode.UNEXPECTED_PROGRAM, "unexpected program accounts");
      createdAta = true;
      continue;
    }
    if (ix.program !== TOKEN)
      refuse(RefusalCode.UNEXPECTED_PROGRAM, `program ${base58(ix.program)} is not allowed`);
    if (ix.data[0] === 12 && ix.data.length === 10) {
      if (transferred) refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only one transfer is allowed");
      expectAccounts(ix, 4, "transferChecked");
      const [from, ixMint, to, authority] = ix.accounts;
      if (ixMint !== mint) refuse(RefusalCode.WRONG_ASSET, "transfer of another mint");
      if (authority !== party.source || !isAssociatedTokenAccount(from!, party.source, mint)) {
        refuse(RefusalCode.WRONG_SOURCE, "transfer is not from the source's token account");
      }
      if (!isAssociatedTokenAccount(to!, party.destination, mint)) {
        refuse(RefusalCode.WRONG_DESTINATION, "transfer does not go to the destination's token account");
      }
      sourceAccount = from;
      if (u64(ix.data, 1) !== intent.amount)
        refuse(RefusalCode.WRONG_AMOUNT, "amount differs from the intent");
      transferred = true;
      continue;
    }
    if (ix.data[0] === 9 && ix.data.length === 1) {
      if (!isSweep || !transferred || closed) {
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "closing is allowed once, after a sweep's transfer");
      }
      expectAccounts(ix, 3, "closeAccount");
      const [account, to, authority] = ix.accounts;
      if (account !== sourceAccount || authority !== party.source) {
        refuse(RefusalCode.UNEXPECTED_INSTRUCTION, "only the deposit's token account may be closed");
      }
      if (to !== party.gas) refuse(RefusalCode.WRONG_CLOSE_DESTINATION, "rent must return to the gas wallet");
      closed = true;
      continue;
    }
    refuse(RefusalCode.UNEXPECTED_INSTRUCTION, `token instruction ${ix.data[0]} is not allowed`);
  }
  if (!transferred) refuse(RefusalCode.WRONG_AMOUNT, "the transaction moves no funds");

  if (unitPrice !== undefined && unitPrice > 0n) {
    const nonBudget = BigInt(instructions.filter((ix) => ix.program !== COMPUTE_BUDGET).length);
    const units = unitLimit ?? minBig(nonBudget * DEFAULT_UNITS_PER_INSTRUCTION, MAX_COMPUTE_UNITS);
    const fee = (unitPrice * units + 999_999n) / 1_000_000n;
    if (fee > options.maxPriorityFeeLamports) {
      refuse(RefusalCode.FEE_OVER_CAP, `priority fee ${fee} lamports is over the cap`);
    }
  }
  return expectedSigners;
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function base58(hex: string): string {
  return new PublicKey(Buffer.from(hex, "hex")).toBase58();
}
