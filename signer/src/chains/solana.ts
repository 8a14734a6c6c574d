// Solana in the signer: ed25519 keys at m/44'/501'/<branch>'/<index>', base58 addresses, SOL or an
// SPL mint as the asset. A transaction is an unsigned message, decoded and refused unless its
// effect is exactly the intent's: the allowed instructions, in the allowed shapes, between the
// allowed accounts.
import { createHash, hash } from "node:crypto";
import { Chain, RefusalCode, type SignRequest } from "@gateway/signer-proto";
import {
  ComputeBudgetProgram,
  PublicKey,
  SYSVAR_RECENT_BLOCKHASHES_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SystemProgram,
} from "@solana/web3.js";
import { MessageFormatError, type ParsedMessage, parseSolanaMessage } from "../codecs/solana-message.js";
import { invalid, refuse } from "../refusal.js";
import type { SignerIntent, SignerLimits } from "../vocabulary.js";
import type { CheckedTransaction, Parties, SignerChain } from "./signer-chain.js";

export const SOL_ASSET = "SOL";

export const solana: SignerChain<"solana"> = {
  name: "solana",
  proto: Chain.SOLANA,
  coinType: 501,
  path: [],
  address: (publicKey) => new PublicKey(publicKey).toBase58(),
  canonicalAddress,
  canonicalAsset: (value) => (value === SOL_ASSET ? value : canonicalAddress(value, "asset")),
  nonceAccountAsset: SOL_ASSET,
  check: checkSolanaTransaction,
  sign: (key, transaction) => ({ address: key.address, signature: key.sign(transaction), serialized: "" }),
  // The fee payer's signature (the gas wallet signs first).
  txid: (_, signatures) => signatures[0]!.signature,
  defaultGasBudget: 10_000_000_000n,
};

// Mints and vaults recur in every intent: remember addresses already found canonical.
const canonical = new Set<string>();

function canonicalAddress(value: string, what: string): string {
  if (canonical.has(value)) return value;
  let key: PublicKey;
  try {
    key = new PublicKey(value);
  } catch {
    invalid(`${what} is not a Solana address`);
  }
  if (key.toBase58() !== value) invalid(`${what} is not a canonical base58 address`);
  if (canonical.size >= 10_000) canonical.clear();
  canonical.add(value);
  return value;
}

// Keys are compared as hex of their bytes: base58 encoding every account key would cost
// more than all the checks together.
const hexKey = (key: PublicKey) => key.toBuffer().toString("hex");
const SYSTEM = hexKey(SystemProgram.programId);
// The SPL Token and Associated Token Account programs, spelled out: @solana/spl-token, which
// exports them, would load a native module at every start of the signer and its CLI for nothing.
const TOKEN = hexKey(new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"));
const ATA = hexKey(new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"));
const COMPUTE_BUDGET = hexKey(ComputeBudgetProgram.programId);
const RECENT_BLOCKHASHES = hexKey(SYSVAR_RECENT_BLOCKHASHES_PUBKEY);
const RENT = hexKey(SYSVAR_RENT_PUBKEY);

// Bounded at 10,000, like the other caches here: a deposit's addresses come back once or twice,
// the vault's, the gas wallet's and the programs' in every transaction, so a small cache keeps
// what recurs.
const CACHE_ENTRIES = 10_000;
const hexCache = new Map<string, string>();
function hexOf(base58: string): string {
  let hex = hexCache.get(base58);
  if (hex === undefined) {
    hex = hexKey(new PublicKey(base58));
    if (hexCache.size >= CACHE_ENTRIES) hexCache.delete(hexCache.keys().next().value!);
    hexCache.set(base58, hex);
  }
  return hex;
}

// Solana's defaults when no SetComputeUnitLimit is present.
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;

// What a fee payer can lose, besides the priority fee: 5,000 lamports per signature, and rent
// for each account it creates (a token account is 165 bytes: 2,039,280 lamports).
const LAMPORTS_PER_SIGNATURE = 5_000n;
const TOKEN_ACCOUNT_RENT = 2_039_280n;
const NONCE_ACCOUNT_SPACE = 80n;

/** The gas wallet's durable nonce account `index`: createWithSeed(gas, "nonce:<index>", System). */
export function nonceAccountAddress(gas: string, index: number): string {
  return new PublicKey(
    createHash("sha256")
      .update(new PublicKey(gas).toBuffer())
      .update(`nonce:${index}`)
      .update(SystemProgram.programId.toBuffer())
      .digest(),
  ).toBase58();
}

type Ix = ParsedMessage["instructions"][number];

function decode(bytes: Uint8Array): { signers: string[]; instructions: Ix[]; recentBlockhash: string } {
  let message: ParsedMessage;
  try {
    message = parseSolanaMessage(bytes);
  } catch (error) {
    const reason = error instanceof MessageFormatError ? error.message : "undecodable";
    refuse(RefusalCode.MALFORMED_TRANSACTION, reason);
  }
  if (message.addressTableLookups > 0)
    refuse(RefusalCode.UNSUPPORTED_FEATURE, "address lookup tables cannot be checked offline");
  return {
    signers: message.keys.slice(0, message.numRequiredSignatures),
    instructions: message.instructions,
    recentBlockhash: message.recentBlockhash,
  };
}

// Seeds [owner, token program, mint], the bump byte (at 96), the program and the marker, as
// create_program_address hashes them; owner and mint are written in for each check.
const ataSeeds = Buffer.from(`${"00".repeat(32)}${TOKEN}${"00".repeat(33)}${ATA}`, "hex");
const ataInput = Buffer.concat([ataSeeds, Buffer.from("ProgramDerivedAddress")]);

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
  ataInput.write(owner, 0, "hex");
  ataInput.write(mint, 64, "hex");
  for (let bump = 255; bump >= 0; bump--) {
    ataInput[96] = bump;
    if (hash("sha256", ataInput, "hex") === account) {
      if (knownAssociated.size >= CACHE_ENTRIES)
        knownAssociated.delete(knownAssociated.values().next().value!);
      knownAssociated.add(id);
      return true;
    }
  }
  return false;
}

const unexpected: (reason: string) => never = (reason) => refuse(RefusalCode.UNEXPECTED_INSTRUCTION, reason);

const base58 = (hex: string) => new PublicKey(Buffer.from(hex, "hex")).toBase58();
const notAllowed: (program: string) => never = (program) =>
  refuse(RefusalCode.UNEXPECTED_PROGRAM, `program ${base58(program)} is not allowed`);

function expectAccounts(ix: Ix, count: number, what: string): void {
  if (ix.accounts.length !== count) unexpected(`${what} must have exactly ${count} accounts`);
}

const isAdvanceNonce = (ix: Ix | undefined) =>
  ix !== undefined && ix.program === SYSTEM && ix.data.length === 4 && ix.data.readUInt32LE(0) === 4;

function u64le(value: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(value);
  return out;
}

/**
 * Creating nonce account `index`: exactly CreateAccountWithSeed (gas wallet as payer and
 * base, System as owner, 80 bytes, the rent-exempt minimum) then InitializeNonceAccount with the
 * gas wallet as authority. The account's address is fixed by its index, so it can be created
 * only once, and the indexes are bounded.
 */
function checkNonceAccountCreation(
  bytes: Uint8Array,
  intent: SignerIntent,
  index: number,
  gasAddress: string,
  limits: SignerLimits,
): CheckedTransaction {
  if (index >= limits.maxSolanaNonceAccounts)
    invalid(`nonce account index ${index} is past the configured bound`);
  const { signers, instructions } = decode(bytes);
  const gas = hexOf(gasAddress);
  if (signers.length !== 1 || signers[0] !== gas)
    refuse(RefusalCode.UNEXPECTED_SIGNER, "only the gas wallet signs a nonce account's creation");
  if (intent.amount > limits.solanaNonceAccountLamports)
    refuse(RefusalCode.WRONG_AMOUNT, "more than a nonce account's rent");
  const nonce = hexOf(nonceAccountAddress(gasAddress, index));
  const [create, init, ...rest] = instructions;
  if (!create || !init || rest.length > 0 || create.program !== SYSTEM || init.program !== SYSTEM)
    unexpected("only create-with-seed then initialize-nonce are allowed");
  const seed = Buffer.from(`nonce:${index}`);
  const data = create.data;
  // CreateAccountWithSeed: tag 3, base, seed (u64 length + bytes), lamports, space, owner.
  const expected = Buffer.concat([
    Buffer.from([3, 0, 0, 0]),
    Buffer.from(gas, "hex"),
    u64le(BigInt(seed.length)),
    seed,
    u64le(intent.amount),
    u64le(NONCE_ACCOUNT_SPACE),
    SystemProgram.programId.toBuffer(),
  ]);
  if (!data.equals(expected) || create.accounts.join() !== [gas, nonce].join())
    unexpected("not the creation of this index's nonce account");
  const initExpected = Buffer.concat([Buffer.from([6, 0, 0, 0]), Buffer.from(gas, "hex")]);
  if (!init.data.equals(initExpected) || init.accounts.join() !== [nonce, RECENT_BLOCKHASHES, RENT].join())
    unexpected("the gas wallet must be the nonce's authority");
  return {
    signers: [gasAddress],
    locks: [`solana-nonce-account:${intent.mode}:${index}`],
    worstCaseFee: LAMPORTS_PER_SIGNATURE + intent.amount,
  };
}

export function checkSolanaTransaction(
  { unsignedTransaction: bytes }: SignRequest,
  intent: SignerIntent,
  parties: Parties,
  limits: SignerLimits,
): CheckedTransaction {
  if (intent.action.kind === "nonce_account")
    return checkNonceAccountCreation(bytes, intent, intent.action.index, parties.gas, limits);
  const decoded = decode(bytes);
  const { signers } = decoded;
  const gas = hexOf(parties.gas);
  const source = Buffer.from(parties.sourceKey).toString("hex");
  const walk: Walk = { intent, gas, source, destination: hexOf(parties.destination), locks: [] };
  if (signers[0] !== gas) refuse(RefusalCode.WRONG_FEE_PAYER, "the fee payer must be the gas wallet");
  if (signers.length !== 2 || !signers.includes(source))
    refuse(RefusalCode.UNEXPECTED_SIGNER, `signers must be exactly the gas wallet and ${parties.source}`);
  for (const ix of afterNonce(decoded, walk)) {
    if (ix.program === COMPUTE_BUDGET) checkComputeBudget(ix, walk);
    else if (walk.transferred && !(ix.program === TOKEN && ix.data[0] === 9))
      unexpected("only closing the deposit's account may follow");
    else if (intent.asset === SOL_ASSET) checkSystemTransfer(ix, walk);
    else checkTokenInstruction(ix, walk, hexOf(intent.asset));
  }
  if (!walk.transferred) refuse(RefusalCode.WRONG_AMOUNT, "the transaction moves no funds");

  let priorityFee = 0n;
  const { unitLimit, unitPrice } = walk;
  if (unitPrice !== undefined && unitPrice > 0n) {
    const nonBudget = BigInt(decoded.instructions.filter((ix) => ix.program !== COMPUTE_BUDGET).length);
    const byDefault = nonBudget * DEFAULT_UNITS_PER_INSTRUCTION;
    const units = unitLimit ?? (byDefault < MAX_COMPUTE_UNITS ? byDefault : MAX_COMPUTE_UNITS);
    priorityFee = (unitPrice * units + 999_999n) / 1_000_000n;
    if (priorityFee > limits.maxSolanaPriorityFeeLamports)
      refuse(RefusalCode.FEE_OVER_CAP, `priority fee ${priorityFee} lamports is over the cap`);
  }
  const rent = walk.createdAta ? TOKEN_ACCOUNT_RENT : 0n;
  const worstCaseFee = LAMPORTS_PER_SIGNATURE * BigInt(signers.length) + priorityFee + rent;
  return { signers: [parties.gas, parties.source], locks: walk.locks, worstCaseFee };
}

/** A transfer's instructions as they are checked in order: its parties (hex) and what came before. */
interface Walk {
  intent: SignerIntent;
  gas: string;
  source: string;
  destination: string;
  locks: string[];
  unitLimit?: bigint;
  unitPrice?: bigint;
  transferred?: boolean;
  closed?: boolean;
  createdAta?: boolean;
  sourceAccount?: string;
}

/**
 * The instructions after the durable nonce's advance, which comes first (the runtime looks for it
 * there). Refunds and payouts must use one: their signed transaction never expires, so a lost
 * answer or a crash never forces a second intent for the same money. Sweeps may use a recent
 * blockhash.
 */
function afterNonce({ instructions, recentBlockhash }: ReturnType<typeof decode>, walk: Walk): Ix[] {
  const advance = instructions[0];
  if (isAdvanceNonce(advance)) {
    expectAccounts(advance!, 3, "nonce advance");
    const [nonce, sysvar, authority] = advance!.accounts;
    if (sysvar !== RECENT_BLOCKHASHES || authority !== walk.gas)
      unexpected("the nonce must be advanced by the gas wallet");
    walk.locks.push(`solana-nonce:${nonce}:${recentBlockhash}`);
    return instructions.slice(1);
  }
  if (walk.intent.action.kind !== "sweep")
    refuse(RefusalCode.NONCE_REQUIRED, "refunds and payouts must advance a durable nonce first");
  return instructions;
}

function checkComputeBudget({ accounts, data }: Ix, walk: Walk): void {
  if (walk.transferred) unexpected("compute budget instructions come first");
  if (accounts.length !== 0) unexpected("compute budget takes no accounts");
  if (data[0] === 2 && data.length === 5 && walk.unitLimit === undefined) {
    walk.unitLimit = BigInt(data.readUInt32LE(1));
  } else if (data[0] === 3 && data.length === 9 && walk.unitPrice === undefined) {
    walk.unitPrice = data.readBigUInt64LE(1);
  } else {
    unexpected("only one unit limit and one unit price are allowed");
  }
}

function checkSystemTransfer(ix: Ix, walk: Walk): void {
  const { program, data, accounts } = ix;
  if (program !== SYSTEM) notAllowed(program);
  // SystemInstruction::Transfer is tag 2 (u32) then lamports (u64).
  if (data.length !== 12 || data.readUInt32LE(0) !== 2) unexpected("only a system transfer is allowed");
  expectAccounts(ix, 2, "system transfer");
  if (accounts[0] !== walk.source) refuse(RefusalCode.WRONG_SOURCE, "transfer is not from the source");
  if (accounts[1] !== walk.destination)
    refuse(RefusalCode.WRONG_DESTINATION, "transfer does not go to the intent's destination");
  if (data.readBigUInt64LE(4) !== walk.intent.amount)
    refuse(RefusalCode.WRONG_AMOUNT, "amount differs from the intent");
  walk.transferred = true;
}

/** The token account's creation, the transfer, and (a sweep) closing the deposit's token account. */
function checkTokenInstruction(ix: Ix, walk: Walk, mint: string): void {
  const { program, data, accounts } = ix;
  const { gas, source, destination } = walk;
  if (program === ATA) {
    // CreateIdempotent (tag 1) of the destination's account (the vault's, for a sweep),
    // paid by the gas wallet: it only ever creates an account the transfer then pays into.
    if (walk.createdAta) unexpected("only one token account may be created");
    if (data.length !== 1 || data[0] !== 1) unexpected("only the idempotent create is allowed");
    expectAccounts(ix, 6, "create token account");
    const [payer, account, owner, ixMint, system, token] = accounts;
    if (payer !== gas) unexpected("the gas wallet must pay for the account");
    if (ixMint !== mint) refuse(RefusalCode.WRONG_ASSET, "token account for another mint");
    if (owner !== destination || !isAssociatedTokenAccount(account!, destination, mint))
      refuse(RefusalCode.WRONG_DESTINATION, "token account for another owner");
    if (system !== SYSTEM || token !== TOKEN)
      refuse(RefusalCode.UNEXPECTED_PROGRAM, "unexpected program accounts");
    walk.createdAta = true;
  } else if (program !== TOKEN) notAllowed(program);
  else if (data[0] === 12 && data.length === 10) {
    if (walk.transferred) unexpected("only one transfer is allowed");
    expectAccounts(ix, 4, "transferChecked");
    const [from, ixMint, to, authority] = accounts;
    if (ixMint !== mint) refuse(RefusalCode.WRONG_ASSET, "transfer of another mint");
    if (authority !== source || !isAssociatedTokenAccount(from!, source, mint))
      refuse(RefusalCode.WRONG_SOURCE, "transfer is not from the source's token account");
    if (!isAssociatedTokenAccount(to!, destination, mint))
      refuse(RefusalCode.WRONG_DESTINATION, "transfer does not go to the destination's token account");
    walk.sourceAccount = from;
    if (data.readBigUInt64LE(1) !== walk.intent.amount)
      refuse(RefusalCode.WRONG_AMOUNT, "amount differs from the intent");
    walk.transferred = true;
  } else if (data[0] === 9 && data.length === 1) {
    if (walk.intent.action.kind !== "sweep" || !walk.transferred || walk.closed)
      unexpected("closing is allowed once, after a sweep's transfer");
    expectAccounts(ix, 3, "closeAccount");
    const [account, to, authority] = accounts;
    if (account !== walk.sourceAccount || authority !== source)
      unexpected("only the deposit's token account may be closed");
    if (to !== gas) refuse(RefusalCode.WRONG_CLOSE_DESTINATION, "rent must return to the gas wallet");
    walk.closed = true;
  } else unexpected(`token instruction ${data[0]} is not allowed`);
}
