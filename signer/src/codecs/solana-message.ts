// A strict reader for Solana messages (legacy and v0): only what the checks need, as hex keys; it
// refuses trailing bytes and repeated keys, so what is signed is exactly what was checked. It runs
// for every signature, so it reads one view of the bytes without copying and makes no closures.

export interface ParsedInstruction {
  /** Hex of the program's key. */
  program: string;
  /** Hex of each account key, in order. */
  accounts: string[];
  /** A view into the message's bytes. */
  data: Buffer;
}

export interface ParsedMessage {
  version: "legacy" | 0;
  /** Hex of every static account key; the first `numRequiredSignatures` are the signers. */
  keys: string[];
  numRequiredSignatures: number;
  /** Hex of the recent blockhash, or of the nonce value for a durable-nonce transaction. */
  recentBlockhash: string;
  instructions: ParsedInstruction[];
  addressTableLookups: number;
}

export class MessageFormatError extends Error {
  override readonly name = "MessageFormatError";
}

class Reader {
  offset = 0;
  constructor(readonly bytes: Buffer) {}

  need(n: number): void {
    if (this.offset + n > this.bytes.length) throw new MessageFormatError("message is truncated");
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }

  /** compact-u16: 7 bits per byte, high bit set while more follow, at most 3 bytes. */
  shortVec(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new MessageFormatError("length out of range");
        return value;
      }
    }
    throw new MessageFormatError("length out of range");
  }

  /** Skips `n` bytes and returns where they start. */
  skip(n: number): number {
    this.need(n);
    const start = this.offset;
    this.offset += n;
    return start;
  }

  hex32(): string {
    const start = this.skip(32);
    return this.bytes.toString("hex", start, start + 32);
  }
}

export function parseSolanaMessage(message: Uint8Array): ParsedMessage {
  const bytes = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const r = new Reader(bytes);
  let version: ParsedMessage["version"] = "legacy";
  if ((bytes[0] ?? 0) & 0x80) {
    const v = r.u8() & 0x7f;
    if (v !== 0) throw new MessageFormatError(`message version ${v} is not supported`);
    version = 0;
  }
  const numRequiredSignatures = r.u8();
  r.u8(); // read-only signed accounts
  r.u8(); // read-only unsigned accounts
  const keyCount = r.shortVec();
  const keys: string[] = new Array(keyCount);
  const seen = new Set<string>();
  for (let i = 0; i < keyCount; i++) {
    const key = r.hex32();
    if (seen.has(key)) throw new MessageFormatError("duplicate account keys");
    seen.add(key);
    keys[i] = key;
  }
  if (numRequiredSignatures === 0 || numRequiredSignatures > keys.length) {
    throw new MessageFormatError("signer count does not fit the account keys");
  }
  const recentBlockhash = r.hex32();
  const instructionCount = r.shortVec();
  const instructions: ParsedInstruction[] = new Array(instructionCount);
  let missing = false;
  for (let i = 0; i < instructionCount; i++) {
    const program = keys[r.u8()];
    const accountCount = r.shortVec();
    const start = r.skip(accountCount);
    const accounts: string[] = new Array(accountCount);
    for (let a = 0; a < accountCount; a++) {
      const key = keys[bytes[start + a]!];
      if (key === undefined) missing = true;
      else accounts[a] = key;
    }
    const dataLength = r.shortVec();
    const data = bytes.subarray(r.skip(dataLength), r.offset);
    if (program === undefined) missing = true;
    else instructions[i] = { program, accounts, data };
  }
  let addressTableLookups = 0;
  if (version === 0) {
    addressTableLookups = r.shortVec();
    for (let i = 0; i < addressTableLookups; i++) {
      r.skip(32);
      r.skip(r.shortVec());
      r.skip(r.shortVec());
    }
  }
  if (r.offset !== bytes.length) throw new MessageFormatError("trailing bytes after the message");
  // Accounts from lookup tables are not in the message; the caller refuses such messages.
  if (addressTableLookups > 0)
    return { version, keys, numRequiredSignatures, recentBlockhash, instructions: [], addressTableLookups };
  if (missing) throw new MessageFormatError("instruction refers to a missing account");
  return { version, keys, numRequiredSignatures, recentBlockhash, instructions, addressTableLookups };
}
