// A transaction as Helius' enhanced webhooks describe it. Amounts in `tokenTransfers`
// are floats there, so consumers must take exact amounts from
// `accountData[].tokenBalanceChanges[].rawTokenAmount` (or the chain itself).
import { getBase58Decoder } from "@solana/kit";
import type { TransactionRecord } from "./chain.js";
import { parseInstruction } from "./parse-instruction.js";
import { formatUnits, SYSTEM_PROGRAM_ID } from "./token.js";

const base58 = getBase58Decoder();

export interface EnhancedTransaction {
  description: string;
  type: "TRANSFER" | "UNKNOWN";
  source: "SYSTEM_PROGRAM" | "SOLANA_PROGRAM_LIBRARY" | "UNKNOWN";
  fee: number;
  feePayer: string;
  signature: string;
  slot: number;
  timestamp: number;
  nativeTransfers: { fromUserAccount: string; toUserAccount: string; amount: number }[];
  tokenTransfers: {
    fromTokenAccount: string;
    toTokenAccount: string;
    fromUserAccount: string;
    toUserAccount: string;
    tokenAmount: number;
    mint: string;
    tokenStandard: "Fungible";
  }[];
  accountData: {
    account: string;
    nativeBalanceChange: number;
    tokenBalanceChanges: {
      userAccount: string;
      tokenAccount: string;
      mint: string;
      rawTokenAmount: { tokenAmount: string; decimals: number };
    }[];
  }[];
  transactionError: unknown;
  instructions: {
    accounts: string[];
    data: string;
    programId: string;
    innerInstructions: { accounts: string[]; data: string; programId: string }[];
  }[];
  events: Record<string, never>;
}

/** Addresses whose webhooks this transaction concerns: its accounts and token-account owners. */
export function touchedAddresses(record: TransactionRecord): Set<string> {
  const addresses = new Set(record.accountKeys);
  for (const balance of [...record.preTokenBalances, ...record.postTokenBalances])
    addresses.add(balance.owner);
  return addresses;
}

export function enhanceTransaction(record: TransactionRecord): EnhancedTransaction {
  const keys = record.accountKeys;
  const tokenInfo = new Map<string, { owner: string; mint: string; decimals: number }>();
  for (const balance of [...record.preTokenBalances, ...record.postTokenBalances]) {
    const key = keys[balance.accountIndex];
    if (key) tokenInfo.set(key, { owner: balance.owner, mint: balance.mint, decimals: balance.decimals });
  }

  type Raw = { programId: string; accounts: string[]; data: Uint8Array };
  const topLevel: (Raw & { inner: Raw[] })[] = record.transaction.message.compiledInstructions.map(
    (ix, index) => ({
      programId: keys[ix.programIdIndex] ?? "",
      accounts: ix.accountKeyIndexes.map((i) => keys[i] ?? ""),
      data: ix.data,
      inner: (record.innerInstructions.find((entry) => entry.index === index)?.instructions ?? []).map(
        (inner) => ({
          programId: keys[inner.programIdIndex] ?? "",
          accounts: inner.accounts.map((i) => keys[i] ?? ""),
          data: inner.data,
        }),
      ),
    }),
  );

  const nativeTransfers: EnhancedTransaction["nativeTransfers"] = [];
  const tokenTransfers: EnhancedTransaction["tokenTransfers"] = [];
  if (record.err === null) {
    for (const ix of topLevel.flatMap((top) => [top, ...top.inner])) {
      const parsed = parseInstruction(ix.programId, ix.accounts, ix.data, null);
      if (!("parsed" in parsed)) continue;
      const { type, info } = parsed.parsed as { type: string; info: Record<string, unknown> };
      if (ix.programId === SYSTEM_PROGRAM_ID && (type === "transfer" || type === "createAccount")) {
        nativeTransfers.push({
          fromUserAccount: String(info["source"]),
          toUserAccount: String(type === "transfer" ? info["destination"] : info["newAccount"]),
          amount: Number(info["lamports"]),
        });
        continue;
      }
      const source = typeof info["source"] === "string" ? info["source"] : "";
      const destination =
        typeof info["destination"] === "string"
          ? info["destination"]
          : typeof info["account"] === "string"
            ? info["account"]
            : "";
      let raw: bigint | null = null;
      if (type === "transfer" || type === "mintTo") raw = BigInt(String(info["amount"]));
      if (type === "transferChecked" || type === "mintToChecked") {
        raw = BigInt((info["tokenAmount"] as { amount: string }).amount);
      }
      if (raw === null) continue;
      const isMint = type === "mintTo" || type === "mintToChecked";
      const details = tokenInfo.get(isMint ? destination : source) ?? tokenInfo.get(destination);
      if (!details) continue;
      tokenTransfers.push({
        fromTokenAccount: isMint ? "" : source,
        toTokenAccount: destination,
        fromUserAccount: isMint ? "" : (tokenInfo.get(source)?.owner ?? ""),
        toUserAccount: tokenInfo.get(destination)?.owner ?? "",
        tokenAmount: Number(formatUnits(raw, details.decimals)),
        mint: details.mint,
        tokenStandard: "Fungible",
      });
    }
  }

  const accountData = keys.map((account, index) => {
    const pre = record.preTokenBalances.find((balance) => balance.accountIndex === index);
    const post = record.postTokenBalances.find((balance) => balance.accountIndex === index);
    const change = (post?.amount ?? 0n) - (pre?.amount ?? 0n);
    const token = post ?? pre;
    return {
      account,
      nativeBalanceChange: Number((record.postBalances[index] ?? 0n) - (record.preBalances[index] ?? 0n)),
      tokenBalanceChanges:
        token && change !== 0n
          ? [
              {
                userAccount: token.owner,
                tokenAccount: account,
                mint: token.mint,
                rawTokenAmount: { tokenAmount: change.toString(), decimals: token.decimals },
              },
            ]
          : [],
    };
  });

  const usesToken = topLevel.some((ix) => ix.programId !== SYSTEM_PROGRAM_ID && tokenTransfers.length > 0);
  const isTransfer = nativeTransfers.length > 0 || tokenTransfers.length > 0;
  const first = tokenTransfers[0];
  const firstNative = nativeTransfers[0];
  const description = first
    ? `${first.fromUserAccount || "mint"} transferred ${first.tokenAmount} ${first.mint} to ${first.toUserAccount}.`
    : firstNative
      ? `${firstNative.fromUserAccount} transferred ${firstNative.amount / 1e9} SOL to ${firstNative.toUserAccount}.`
      : "";

  return {
    description,
    type: isTransfer ? "TRANSFER" : "UNKNOWN",
    source: usesToken ? "SOLANA_PROGRAM_LIBRARY" : isTransfer ? "SYSTEM_PROGRAM" : "UNKNOWN",
    fee: Number(record.fee),
    feePayer: keys[0] ?? "",
    signature: record.signature,
    slot: record.slot,
    timestamp: record.blockTime,
    nativeTransfers,
    tokenTransfers,
    accountData,
    transactionError: record.err === null ? null : { error: record.err },
    instructions: topLevel.map((ix) => ({
      accounts: ix.accounts,
      data: base58.decode(ix.data),
      programId: ix.programId,
      innerInstructions: ix.inner.map((inner) => ({
        accounts: inner.accounts,
        data: base58.decode(inner.data),
        programId: inner.programId,
      })),
    })),
    events: {},
  };
}
