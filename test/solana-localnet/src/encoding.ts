// Accounts and transactions in the JSON shapes of the Solana JSON-RPC API.
import { getBase58Decoder } from "@solana/kit";
import type { AccountSnapshot, TokenBalance, TransactionRecord } from "./chain.js";
import { costUnits } from "./cost-units.js";
import { invalidParams } from "./errors.js";
import { parseInstruction } from "./parse-instruction.js";
import { decodeMint, decodeTokenAccount, TOKEN_PROGRAM_ID, uiTokenAmount } from "./token.js";

const base58 = getBase58Decoder();

/** u64::MAX, what the validator reports for rent-exempt accounts; a JSON number there, read as a double. */
const RENT_EPOCH_EXEMPT = Number(2n ** 64n - 1n);

export type AccountEncoding = "base58" | "base64" | "jsonParsed";

export function accountEncoding(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback;
  if (value === "base58" || value === "base64" || value === "jsonParsed") return value;
  if (value === "binary") return "base58";
  throw invalidParams(`Invalid params: unsupported encoding ${JSON.stringify(value)}`);
}

function parsedAccountData(account: AccountSnapshot, decimalsOf: (mint: string) => number | null): unknown {
  const program = account.owner === TOKEN_PROGRAM_ID ? "spl-token" : "spl-token-2022";
  const token = decodeTokenAccount(account.owner, account.data);
  if (token) {
    const decimals = decimalsOf(token.mint) ?? 0;
    const info: Record<string, unknown> = {
      isNative: token.isNative !== null,
      mint: token.mint,
      owner: token.owner,
      state: token.state,
      tokenAmount: uiTokenAmount(token.amount, decimals),
    };
    if (token.delegate) {
      info["delegate"] = token.delegate;
      info["delegatedAmount"] = uiTokenAmount(token.delegatedAmount, decimals);
    }
    if (token.closeAuthority) info["closeAuthority"] = token.closeAuthority;
    if (token.isNative !== null) info["rentExemptReserve"] = uiTokenAmount(token.isNative, decimals);
    return { parsed: { info, type: "account" }, program, space: account.data.length };
  }
  const mint = decodeMint(account.owner, account.data);
  if (mint) {
    return {
      parsed: {
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
        type: "mint",
      },
      program,
      space: account.data.length,
    };
  }
  return null;
}

export function encodeAccount(
  account: AccountSnapshot,
  encoding: AccountEncoding,
  decimalsOf: (mint: string) => number | null,
  dataSlice?: { offset: number; length: number },
) {
  const bytes = dataSlice
    ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
    : account.data;
  let data: unknown;
  if (encoding === "jsonParsed") data = parsedAccountData(account, decimalsOf);
  if (data === undefined || data === null) {
    data =
      encoding === "base58"
        ? [base58.decode(bytes), "base58"]
        : [Buffer.from(bytes).toString("base64"), "base64"];
  }
  return {
    data,
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: RENT_EPOCH_EXEMPT,
    space: account.data.length,
  };
}

function tokenBalanceJson(balance: TokenBalance) {
  return {
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    owner: balance.owner,
    programId: balance.programId,
    uiTokenAmount: uiTokenAmount(balance.amount, balance.decimals),
  };
}

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";

export function transactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return "json";
  if (value === "json" || value === "jsonParsed" || value === "base64" || value === "base58") return value;
  throw invalidParams(`Invalid params: unsupported encoding ${JSON.stringify(value)}`);
}

export function encodeTransaction(
  record: TransactionRecord,
  encoding: TransactionEncoding,
  includeVersion: boolean,
) {
  const tx = record.transaction;
  const message = tx.message;
  const keys = record.accountKeys;
  const isV0 = message.version === 0;
  const parsed = encoding === "jsonParsed";

  let transaction: unknown;
  if (encoding === "base64" || encoding === "base58") {
    const bytes = tx.serialize();
    transaction =
      encoding === "base64"
        ? [Buffer.from(bytes).toString("base64"), "base64"]
        : [base58.decode(bytes), "base58"];
  } else {
    const instructions = message.compiledInstructions.map((ix) =>
      parsed
        ? parseInstruction(
            keys[ix.programIdIndex] ?? "",
            ix.accountKeyIndexes.map((index) => keys[index] ?? ""),
            ix.data,
            null,
          )
        : {
            accounts: ix.accountKeyIndexes,
            data: base58.decode(ix.data),
            programIdIndex: ix.programIdIndex,
            stackHeight: null,
          },
    );
    const jsonMessage: Record<string, unknown> = parsed
      ? {
          accountKeys: keys.map((pubkey, index) => ({
            pubkey,
            signer: message.isAccountSigner(index),
            source: "transaction",
            writable: message.isAccountWritable(index),
          })),
          instructions,
          recentBlockhash: message.recentBlockhash,
        }
      : {
          accountKeys: keys,
          header: message.header,
          instructions,
          recentBlockhash: message.recentBlockhash,
        };
    if (isV0) jsonMessage["addressTableLookups"] = [];
    transaction = {
      message: jsonMessage,
      signatures: tx.signatures.map((signature) => base58.decode(signature)),
    };
  }

  const innerInstructions = record.innerInstructions.map((entry) => ({
    index: entry.index,
    instructions: entry.instructions.map((ix) =>
      parsed
        ? parseInstruction(
            keys[ix.programIdIndex] ?? "",
            ix.accounts.map((index) => keys[index] ?? ""),
            ix.data,
            ix.stackHeight,
          )
        : {
            accounts: ix.accounts,
            data: base58.decode(ix.data),
            programIdIndex: ix.programIdIndex,
            stackHeight: ix.stackHeight,
          },
    ),
  }));

  const meta: Record<string, unknown> = {
    computeUnitsConsumed: record.computeUnitsConsumed,
    costUnits: costUnits(record.transaction, record.computeUnitsConsumed),
    err: record.err,
    fee: Number(record.fee),
    innerInstructions,
    logMessages: record.logs,
    postBalances: record.postBalances.map(Number),
    postTokenBalances: record.postTokenBalances.map(tokenBalanceJson),
    preBalances: record.preBalances.map(Number),
    preTokenBalances: record.preTokenBalances.map(tokenBalanceJson),
    rewards: [],
    status: record.err === null ? { Ok: null } : { Err: record.err },
  };
  // The validator lists loaded addresses in `json` only; `jsonParsed` marks them in accountKeys.
  if (!parsed) meta["loadedAddresses"] = { readonly: [], writable: [] };

  const result: Record<string, unknown> = {
    blockTime: record.blockTime,
    meta,
    slot: record.slot,
    transaction,
  };
  if (includeVersion) result["version"] = isV0 ? 0 : "legacy";
  return result;
}
