// A legacy Solana message compiled byte for byte as web3.js compiles a `Transaction`, without
// rebuilding base58 text for every comparison: each key is encoded once, one collator sorts them.
// The tests compare both on random messages, so the signer sees the same messages as before.
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { flatCopy, recentCache } from "./recent-cache.js";

/** The most a transaction may take on the wire; web3.js refuses instructions beyond it too. */
const PACKET_DATA_SIZE = 1232;

// web3.js's tie-break: `a.localeCompare(b, "en", options)` is, by definition, this collator's compare.
const byKeyText = new Intl.Collator("en", {
  localeMatcher: "best fit",
  usage: "sort",
  sensitivity: "variant",
  ignorePunctuation: false,
  numeric: false,
  caseFirst: "lower",
}).compare;

interface Meta {
  key: PublicKey;
  bytes: Uint8Array;
  /** Base58, only when the order needs it: encoding is most of what compiling costs. */
  text?: string;
  isSigner: boolean;
  isWritable: boolean;
}

const identity = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");

/**
 * Base58 both ways for keys and blockhashes seen recently: programs, mints, the vault, the gas
 * wallet and a blockhash recur in transaction after transaction, and base58 is the costly part.
 * What is kept is kept compact: a flat copy of the text (base58 builds it a character at a time,
 * a tree of concatenations of about a kilobyte), and a blockhash's bytes in a buffer of their own
 * (PublicKey's come sliced from Node's 8 KiB pool, which a kept slice holds whole).
 */
const texts = recentCache<string>(1024);
const blockhashes = recentCache<Uint8Array>(64);
function textOf(meta: Meta): string {
  if (meta.text !== undefined) return meta.text;
  const id = identity(meta.bytes);
  meta.text = texts.get(id) ?? texts.remember(id, flatCopy(meta.key.toBase58()));
  return meta.text;
}
const blockhashBytes = (text: string) =>
  blockhashes.get(text) ??
  blockhashes.remember(flatCopy(text), Uint8Array.from(new PublicKey(text).toBytes()));

/** The message bytes web3.js's `new Transaction({ feePayer, recentBlockhash }).add(...instructions).serializeMessage()` gives. */
export function compileLegacyMessage(
  feePayer: PublicKey,
  recentBlockhash: string,
  instructions: readonly TransactionInstruction[],
): Uint8Array {
  // Every account each instruction names, in order, then each program once, read-only; a key
  // named twice keeps the first place and the union of its flags.
  const metas = new Map<string, Meta>();
  const add = (key: PublicKey, isSigner: boolean, isWritable: boolean) => {
    const bytes = key.toBytes();
    const id = identity(bytes);
    const known = metas.get(id);
    if (known) {
      known.isSigner ||= isSigner;
      known.isWritable ||= isWritable;
    } else metas.set(id, { key, bytes, isSigner, isWritable });
    return id;
  };
  // Each program once, in the order instructions first name it.
  const programs = new Map<string, PublicKey>();
  const instructionIds = instructions.map((instruction) => {
    const keys = instruction.keys.map((meta) => add(meta.pubkey, meta.isSigner, meta.isWritable));
    const program = identity(instruction.programId.toBytes());
    if (!programs.has(program)) programs.set(program, instruction.programId);
    return { keys, program };
  });
  for (const program of programs.values()) add(program, false, false);

  const sorted = [...metas.values()].sort((x, y) => {
    if (x.isSigner !== y.isSigner) return x.isSigner ? -1 : 1;
    if (x.isWritable !== y.isWritable) return x.isWritable ? -1 : 1;
    return byKeyText(textOf(x), textOf(y));
  });
  // The fee payer goes first, a writable signer whatever the instructions said.
  const payerBytes = feePayer.toBytes();
  const payerId = identity(payerBytes);
  const payerAt = sorted.findIndex((meta) => identity(meta.bytes) === payerId);
  const payer = payerAt >= 0 ? sorted.splice(payerAt, 1)[0]! : { key: feePayer, bytes: payerBytes };
  const accounts: Meta[] = [{ ...payer, isSigner: true, isWritable: true }, ...sorted];

  // Indices are single bytes in a legacy message.
  if (accounts.length > 256)
    throw new RangeError(`a legacy message holds at most 256 accounts, not ${accounts.length}`);
  const index = new Map(accounts.map((meta, at) => [identity(meta.bytes), at]));
  const signers = accounts.filter((meta) => meta.isSigner);
  const header = [
    signers.length,
    signers.filter((meta) => !meta.isWritable).length,
    accounts.filter((meta) => !meta.isSigner && !meta.isWritable).length,
  ];

  const parts: Uint8Array[] = [Uint8Array.from(header), compactU16(accounts.length)];
  for (const meta of accounts) parts.push(meta.bytes);
  parts.push(blockhashBytes(recentBlockhash));
  const body: Uint8Array[] = [compactU16(instructions.length)];
  for (const [n, instruction] of instructions.entries()) {
    const { program, keys } = instructionIds[n]!;
    body.push(
      Uint8Array.of(index.get(program)!),
      compactU16(keys.length),
      Uint8Array.from(keys, (id) => index.get(id)!),
      compactU16(instruction.data.length),
      instruction.data,
    );
  }
  const instructionBytes = concat(body);
  if (instructionBytes.length > PACKET_DATA_SIZE)
    throw new RangeError(`the instructions take ${instructionBytes.length} bytes, over ${PACKET_DATA_SIZE}`);
  parts.push(instructionBytes);
  return concat(parts);
}

/** Solana's compact-u16 ("shortvec"): seven bits a byte, low first, at most three bytes. */
export function compactU16(value: number): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      bytes.push(low);
      return Uint8Array.from(bytes);
    }
    bytes.push(low | 0x80);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
