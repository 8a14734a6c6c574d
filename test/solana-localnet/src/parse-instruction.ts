// `jsonParsed` instructions for the programs a payment touches (System, SPL Token,
// Associated Token Account, Memo), in the shapes of the validator's transaction-status
// parsers; any other instruction is returned partially decoded, as the validator does.
import { getBase58Decoder } from "@solana/kit";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  uiTokenAmount,
} from "./token.js";

const base58 = getBase58Decoder();

export type JsonParsedInstruction =
  | { program: string; programId: string; parsed: unknown; stackHeight: number | null }
  | { programId: string; accounts: string[]; data: string; stackHeight: number | null };

type Info = Record<string, unknown>;
type Parsed = { type: string; info: Info };

function u64(data: Buffer, offset: number): bigint | null {
  return data.length >= offset + 8 ? data.readBigUInt64LE(offset) : null;
}

function key(data: Buffer, offset: number): string {
  return base58.decode(data.subarray(offset, offset + 32));
}

function parseSystem(data: Buffer, accounts: readonly string[]): Parsed | null {
  if (data.length < 4) return null;
  const tag = data.readUInt32LE(0);
  const [a0, a1] = accounts;
  switch (tag) {
    case 0: {
      const lamports = u64(data, 4);
      const space = u64(data, 12);
      if (lamports === null || space === null || data.length < 52) return null;
      return {
        type: "createAccount",
        info: {
          lamports: Number(lamports),
          newAccount: a1,
          owner: key(data, 20),
          source: a0,
          space: Number(space),
        },
      };
    }
    case 1:
      return data.length >= 36 ? { type: "assign", info: { account: a0, owner: key(data, 4) } } : null;
    case 2: {
      const lamports = u64(data, 4);
      return lamports === null
        ? null
        : { type: "transfer", info: { destination: a1, lamports: Number(lamports), source: a0 } };
    }
    case 8: {
      const space = u64(data, 4);
      return space === null ? null : { type: "allocate", info: { account: a0, space: Number(space) } };
    }
    default:
      return null;
  }
}

function parseToken(data: Buffer, accounts: readonly string[]): Parsed | null {
  const tag = data[0];
  const [a0, a1, a2, a3] = accounts;
  const amount = () => u64(data, 1);
  const checked = (mint: string | undefined) => {
    const raw = amount();
    const decimals = data[9];
    if (raw === null || decimals === undefined || mint === undefined) return null;
    return uiTokenAmount(raw, decimals);
  };
  const optionalKey = (offset: number): string | null => (data[offset] === 1 ? key(data, offset + 1) : null);
  switch (tag) {
    case 0:
    case 20: {
      if (data.length < 35) return null;
      const info: Info = { decimals: data[1], mint: a0, mintAuthority: key(data, 2) };
      const freeze = optionalKey(34);
      if (freeze) info["freezeAuthority"] = freeze;
      if (tag === 0) info["rentSysvar"] = a1;
      return { type: tag === 0 ? "initializeMint" : "initializeMint2", info };
    }
    case 1:
      return { type: "initializeAccount", info: { account: a0, mint: a1, owner: a2, rentSysvar: a3 } };
    case 16:
      return data.length >= 33
        ? { type: "initializeAccount2", info: { account: a0, mint: a1, owner: key(data, 1), rentSysvar: a2 } }
        : null;
    case 18:
      return data.length >= 33
        ? { type: "initializeAccount3", info: { account: a0, mint: a1, owner: key(data, 1) } }
        : null;
    case 3: {
      const raw = amount();
      return raw === null
        ? null
        : { type: "transfer", info: { amount: raw.toString(), authority: a2, destination: a1, source: a0 } };
    }
    case 4: {
      const raw = amount();
      return raw === null
        ? null
        : { type: "approve", info: { amount: raw.toString(), delegate: a1, owner: a2, source: a0 } };
    }
    case 5:
      return { type: "revoke", info: { owner: a1, source: a0 } };
    case 7: {
      const raw = amount();
      return raw === null
        ? null
        : { type: "mintTo", info: { account: a1, amount: raw.toString(), mint: a0, mintAuthority: a2 } };
    }
    case 8: {
      const raw = amount();
      return raw === null
        ? null
        : { type: "burn", info: { account: a0, amount: raw.toString(), authority: a2, mint: a1 } };
    }
    case 9:
      return { type: "closeAccount", info: { account: a0, destination: a1, owner: a2 } };
    case 10:
    case 11:
      return {
        type: tag === 10 ? "freezeAccount" : "thawAccount",
        info: { account: a0, freezeAuthority: a2, mint: a1 },
      };
    case 12: {
      const tokenAmount = checked(a1);
      return tokenAmount
        ? {
            type: "transferChecked",
            info: { authority: a3, destination: a2, mint: a1, source: a0, tokenAmount },
          }
        : null;
    }
    case 14: {
      const tokenAmount = checked(a0);
      return tokenAmount
        ? { type: "mintToChecked", info: { account: a1, mint: a0, mintAuthority: a2, tokenAmount } }
        : null;
    }
    case 15: {
      const tokenAmount = checked(a1);
      return tokenAmount
        ? { type: "burnChecked", info: { account: a0, authority: a2, mint: a1, tokenAmount } }
        : null;
    }
    case 17:
      return { type: "syncNative", info: { account: a0 } };
    case 21:
      return { type: "getAccountDataSize", info: { mint: a0 } };
    case 22:
      return { type: "initializeImmutableOwner", info: { account: a0 } };
    default:
      return null;
  }
}

function parseAssociatedToken(data: Buffer, accounts: readonly string[]): Parsed | null {
  const [source, account, wallet, mint, systemProgram, tokenProgram] = accounts;
  const info = { account, mint, source, systemProgram, tokenProgram, wallet };
  if (data.length === 0 || data[0] === 0) return { type: "create", info };
  if (data[0] === 1) return { type: "createIdempotent", info };
  return null;
}

export function parseInstruction(
  programId: string,
  accounts: readonly string[],
  rawData: Uint8Array,
  stackHeight: number | null,
): JsonParsedInstruction {
  const data = Buffer.from(rawData);
  let program: string | null = null;
  let parsed: unknown = null;
  if (programId === SYSTEM_PROGRAM_ID) {
    program = "system";
    parsed = parseSystem(data, accounts);
  } else if (programId === TOKEN_PROGRAM_ID || programId === TOKEN_2022_PROGRAM_ID) {
    program = programId === TOKEN_PROGRAM_ID ? "spl-token" : "spl-token-2022";
    parsed = parseToken(data, accounts);
  } else if (programId === ASSOCIATED_TOKEN_PROGRAM_ID) {
    program = "spl-associated-token-account";
    parsed = parseAssociatedToken(data, accounts);
  } else if (programId === MEMO_PROGRAM_ID || programId === MEMO_V1_PROGRAM_ID) {
    program = "spl-memo";
    const text = data.toString("utf8");
    parsed = Buffer.from(text, "utf8").equals(data) ? text : null;
  }
  if (program !== null && parsed !== null) return { parsed, program, programId, stackHeight };
  return { accounts: [...accounts], data: base58.decode(data), programId, stackHeight };
}
