// A strict reader for Solana transaction messages (legacy and v0). It reads only what
// the checks need, as hex keys, and refuses trailing bytes: whatever is signed must be
// exactly what was checked. (web3.js's reader builds a bignum per key, which cost more
// than all the checks together, and accepts trailing bytes.)

export interface ParsedInstruction {
  /** Hex of the program's key. */
  program: string;
  /** Hex of each account key, in order. */
  accounts: string[];
  data: Uint8Array;
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

export function parseSolanaMessage(bytes: Uint8Array): ParsedMessage {
  let offset = 0;
  const need = (n: number) => {
    if (offset + n > bytes.length) throw new MessageFormatError("message is truncated");
  };
  const u8 = () => {
    need(1);
    return bytes[offset++]!;
  };
  // compact-u16: 7 bits per byte, high bit set while more follow, at most 3 bytes.
  const shortVec = () => {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const byte = u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) throw new MessageFormatError("length out of range");
        return value;
      }
    }
    throw new MessageFormatError("length out of range");
  };
  const take = (n: number) => {
    need(n);
    const slice = bytes.subarray(offset, offset + n);
    offset += n;
    return slice;
  };

  let version: ParsedMessage["version"] = "legacy";
  if ((bytes[0] ?? 0) & 0x80) {
    const v = u8() & 0x7f;
    if (v !== 0) throw new MessageFormatError(`message version ${v} is not supported`);
    version = 0;
  }
  const numRequiredSignatures = u8();
  u8(); // read-only signed accounts
  u8(); // read-only unsigned accounts
  const keyCount = shortVec();
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) keys.push(Buffer.from(take(32)).toString("hex"));
  if (numRequiredSignatures === 0 || numRequiredSignatures > keys.length) {
    throw new MessageFormatError("signer count does not fit the account keys");
  }
  const recentBlockhash = Buffer.from(take(32)).toString("hex");
  const instructionCount = shortVec();
  const raw: { programIndex: number; accountIndexes: Uint8Array; data: Uint8Array }[] = [];
  for (let i = 0; i < instructionCount; i++) {
    const programIndex = u8();
    const accountIndexes = take(shortVec());
    const data = take(shortVec());
    raw.push({ programIndex, accountIndexes, data });
  }
  let addressTableLookups = 0;
  if (version === 0) {
    addressTableLookups = shortVec();
    for (let i = 0; i < addressTableLookups; i++) {
      take(32);
      take(shortVec());
      take(shortVec());
    }
  }
  if (offset !== bytes.length) throw new MessageFormatError("trailing bytes after the message");
  // Accounts from lookup tables are not in the message; the caller refuses such messages.
  if (addressTableLookups > 0)
    return { version, keys, numRequiredSignatures, recentBlockhash, instructions: [], addressTableLookups };
  const instructions = raw.map(({ programIndex, accountIndexes, data }): ParsedInstruction => {
    const program = keys[programIndex];
    const accounts = Array.from(accountIndexes, (index) => keys[index]);
    if (program === undefined || accounts.some((a) => a === undefined)) {
      throw new MessageFormatError("instruction refers to a missing account");
    }
    return { program, accounts: accounts as string[], data };
  });
  return { version, keys, numRequiredSignatures, recentBlockhash, instructions, addressTableLookups };
}
