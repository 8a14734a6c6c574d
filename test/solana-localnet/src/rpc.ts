// The Solana JSON-RPC methods a `@solana/web3.js` 1.x Connection calls, answered from
// the chain with the validator's response shapes (`{ context: { slot }, value }`).
import { getBase58Encoder } from "@solana/kit";
import { PublicKey, VersionedMessage } from "@solana/web3.js";
import type { Chain, Commitment, TransactionRecord } from "./chain.js";
import { accountEncoding, encodeAccount, encodeTransaction, transactionEncoding } from "./encoding.js";
import { invalidParams, RpcCode, RpcError } from "./errors.js";
import type { Faucet } from "./faucet.js";
import { computeFee } from "./fees.js";
import { decodeMint, decodeTokenAccount, isTokenProgram, uiTokenAmount } from "./token.js";

type Params = readonly unknown[];
type Config = Record<string, unknown>;
type Method = (params: Params) => unknown;

export interface RpcHandlerOptions {
  readonly chain: Chain;
  readonly faucet: Faucet;
  readonly genesisHash: string;
}

const SLOTS_PER_EPOCH = 432_000;
const MAX_SIGNATURES_LIMIT = 1000;

function config(params: Params, index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw invalidParams("Invalid params: expected a config object");
  return value as Config;
}

function pubkey(value: unknown): string {
  if (typeof value !== "string") throw invalidParams("Invalid params: expected a base-58 public key");
  try {
    return new PublicKey(value).toBase58();
  } catch {
    throw invalidParams(`Invalid param: Invalid`);
  }
}

function commitmentOf(cfg: Config): Commitment {
  const value = cfg["commitment"] ?? cfg["preflightCommitment"];
  switch (value) {
    case undefined:
    case null:
    case "finalized":
    case "max":
    case "root":
      return "finalized";
    case "confirmed":
    case "single":
    case "singleGossip":
      return "confirmed";
    case "processed":
    case "recent":
      return "processed";
    default:
      throw invalidParams(`Invalid params: unknown commitment ${JSON.stringify(value)}`);
  }
}

function atLeastConfirmed(cfg: Config): Commitment {
  const commitment = commitmentOf(cfg);
  if (commitment === "processed") {
    throw new RpcError(RpcCode.invalidParams, "Method does not support commitment below `confirmed`");
  }
  return commitment;
}

function decodeWire(value: unknown, encoding: unknown): Uint8Array {
  if (typeof value !== "string") throw invalidParams("Invalid params: expected an encoded transaction");
  if (encoding === "base64") return Buffer.from(value, "base64");
  if (encoding === undefined || encoding === null || encoding === "base58") {
    try {
      return new Uint8Array(bs58Decode(value));
    } catch {
      throw invalidParams("Invalid params: invalid base58 encoding");
    }
  }
  throw invalidParams(`Invalid params: unsupported encoding ${JSON.stringify(encoding)}`);
}

const base58Encoder = getBase58Encoder();
const bs58Decode = (text: string) => base58Encoder.encode(text);

export function createRpcMethods({ chain, faucet, genesisHash }: RpcHandlerOptions): Map<string, Method> {
  const context = (commitment: Commitment) => ({ apiVersion: "2.2.16", slot: chain.slotAt(commitment) });
  const decimalsOf = (mint: string) => chain.mintDecimals(mint);

  function checkMinContextSlot(cfg: Config, commitment: Commitment): void {
    const min = cfg["minContextSlot"];
    if (typeof min === "number" && min > chain.slotAt(commitment)) {
      throw new RpcError(-32016, "Minimum context slot has not been reached", {
        contextSlot: chain.slotAt(commitment),
      });
    }
  }

  function accountValue(key: string, cfg: Config, commitment: Commitment) {
    const account = chain.getAccount(key, commitment);
    if (!account) return null;
    const slice = cfg["dataSlice"] as { offset: number; length: number } | undefined;
    return encodeAccount(account, accountEncoding(cfg["encoding"], "base58"), decimalsOf, slice);
  }

  function signatureStatus(record: TransactionRecord | undefined) {
    if (!record) return null;
    const status = chain.commitmentOf(record);
    return {
      confirmationStatus: status,
      confirmations: status === "finalized" ? null : chain.slot() - record.slot,
      err: record.err,
      slot: record.slot,
      status: record.err === null ? { Ok: null } : { Err: record.err },
    };
  }

  function visible(record: TransactionRecord, commitment: Commitment): boolean {
    return commitment !== "finalized" || chain.commitmentOf(record) === "finalized";
  }

  const methods = new Map<string, Method>();
  const add = (name: string, method: Method) => methods.set(name, method);

  add("getHealth", () => "ok");
  add("getVersion", () => ({ "feature-set": 3294202862, "solana-core": "2.2.16" }));
  add("getGenesisHash", () => genesisHash);
  add("getIdentity", () => ({ identity: faucet.faucetAddress }));
  add("getSlot", (params) => {
    const cfg = config(params, 0);
    return chain.slotAt(commitmentOf(cfg));
  });
  add("getBlockHeight", (params) => chain.slotAt(commitmentOf(config(params, 0))));
  add("getTransactionCount", () => chain.transactionCount());
  add("getEpochInfo", (params) => {
    const commitment = commitmentOf(config(params, 0));
    const slot = chain.slotAt(commitment);
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: chain.transactionCount(),
    };
  });
  add("getLatestBlockhash", (params) => {
    const cfg = config(params, 0);
    const commitment = commitmentOf(cfg);
    checkMinContextSlot(cfg, commitment);
    return { context: context(commitment), value: chain.latestBlockhash(commitment) };
  });
  add("isBlockhashValid", (params) => {
    const commitment = commitmentOf(config(params, 1));
    const hash = params[0];
    if (typeof hash !== "string") throw invalidParams("Invalid params: expected a blockhash");
    return { context: context(commitment), value: chain.isBlockhashValid(hash) };
  });
  add("getBalance", (params) => {
    const cfg = config(params, 1);
    const commitment = commitmentOf(cfg);
    checkMinContextSlot(cfg, commitment);
    const account = chain.getAccount(pubkey(params[0]), commitment);
    return { context: context(commitment), value: Number(account?.lamports ?? 0n) };
  });
  add("getAccountInfo", (params) => {
    const cfg = config(params, 1);
    const commitment = commitmentOf(cfg);
    checkMinContextSlot(cfg, commitment);
    return { context: context(commitment), value: accountValue(pubkey(params[0]), cfg, commitment) };
  });
  add("getMultipleAccounts", (params) => {
    const keys = params[0];
    if (!Array.isArray(keys)) throw invalidParams("Invalid params: expected an array of public keys");
    if (keys.length > 100) throw invalidParams("Too many inputs provided; max 100");
    const cfg = config(params, 1);
    const commitment = commitmentOf(cfg);
    return {
      context: context(commitment),
      value: keys.map((key) => accountValue(pubkey(key), cfg, commitment)),
    };
  });
  add("getMinimumBalanceForRentExemption", (params) => {
    const size = params[0];
    if (typeof size !== "number" || !Number.isInteger(size) || size < 0) {
      throw invalidParams("Invalid params: expected a data length");
    }
    return Number(chain.svm.minimumBalanceForRentExemption(BigInt(size)));
  });
  add("getFeeForMessage", (params) => {
    const commitment = commitmentOf(config(params, 1));
    if (typeof params[0] !== "string") throw invalidParams("Invalid params: expected a base-64 message");
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(Buffer.from(params[0], "base64"));
    } catch {
      throw invalidParams("Invalid params: failed to deserialize the message");
    }
    const keys = message.staticAccountKeys.map((key) => key.toBase58());
    const value = chain.isBlockhashValid(message.recentBlockhash) ? Number(computeFee(message, keys)) : null;
    return { context: context(commitment), value };
  });
  add("getRecentPrioritizationFees", () => {
    const slot = chain.slot();
    return Array.from({ length: Math.min(150, slot + 1) }, (_, index) => ({
      prioritizationFee: 0,
      slot: slot - index,
    })).reverse();
  });
  add("sendTransaction", (params) => {
    const cfg = config(params, 1);
    if (cfg["preflightCommitment"] !== undefined) commitmentOf({ commitment: cfg["preflightCommitment"] });
    const bytes = decodeWire(params[0], cfg["encoding"]);
    return chain.sendTransaction(bytes, { skipPreflight: cfg["skipPreflight"] === true });
  });
  add("simulateTransaction", (params) => {
    const cfg = config(params, 1);
    const commitment = commitmentOf(cfg);
    const sigVerify = cfg["sigVerify"] === true;
    const replaceRecentBlockhash = cfg["replaceRecentBlockhash"] === true;
    if (sigVerify && replaceRecentBlockhash) {
      throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    }
    const accountsCfg = (cfg["accounts"] ?? null) as { addresses?: unknown[]; encoding?: unknown } | null;
    const addresses = (accountsCfg?.addresses ?? []).map(pubkey);
    const result = chain.simulateTransaction(decodeWire(params[0], cfg["encoding"]), {
      sigVerify,
      replaceRecentBlockhash,
      accounts: addresses,
    });
    const encoding = accountEncoding(accountsCfg?.encoding, "base64");
    const value: Record<string, unknown> = {
      accounts: accountsCfg
        ? addresses.map((key) => {
            const account = result.accounts.get(key);
            return account ? encodeAccount(account, encoding, decimalsOf) : null;
          })
        : null,
      err: result.err,
      innerInstructions: null,
      loadedAccountsDataSize: 0,
      logs: result.logs,
      replacementBlockhash: replaceRecentBlockhash ? chain.latestBlockhash(commitment) : null,
      returnData: null,
      unitsConsumed: result.unitsConsumed,
    };
    return { context: context(commitment), value };
  });
  add("getSignatureStatuses", (params) => {
    const signatures = params[0];
    if (!Array.isArray(signatures)) throw invalidParams("Invalid params: expected an array of signatures");
    if (signatures.length > 256) throw invalidParams("Too many inputs provided; max 256");
    return {
      context: context("processed"),
      value: signatures.map((signature) =>
        typeof signature === "string" ? signatureStatus(chain.getTransaction(signature)) : null,
      ),
    };
  });
  add("getTransaction", (params) => {
    const cfg = typeof params[1] === "string" ? { encoding: params[1] } : config(params, 1);
    const commitment = atLeastConfirmed(cfg);
    const encoding = transactionEncoding(cfg["encoding"]);
    const signature = params[0];
    if (typeof signature !== "string") throw invalidParams("Invalid params: expected a signature");
    const record = chain.getTransaction(signature);
    if (!record || !visible(record, commitment)) return null;
    const maxVersion = cfg["maxSupportedTransactionVersion"];
    if (record.transaction.message.version === 0 && maxVersion !== 0) {
      throw new RpcError(
        RpcCode.unsupportedTransactionVersion,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    return encodeTransaction(record, encoding, maxVersion !== undefined && maxVersion !== null);
  });
  const blockNotAvailable = (slot: unknown) =>
    new RpcError(-32004, `Block not available for slot ${String(slot)}`);
  const slotParam = (value: unknown, name: string): number => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw invalidParams(`Invalid params: ${name} must be a slot number`);
    }
    return value;
  };
  add("getBlock", (params) => {
    const slot = slotParam(params[0], "slot");
    const cfg = typeof params[1] === "string" ? { encoding: params[1] } : config(params, 1);
    const commitment = atLeastConfirmed(cfg);
    if (slot > chain.slotAt(commitment)) throw blockNotAvailable(slot);
    const block = chain.getBlock(slot);
    if (!block) throw blockNotAvailable(slot);
    const encoding = transactionEncoding(cfg["encoding"]);
    const details = cfg["transactionDetails"] ?? "full";
    const maxVersion = cfg["maxSupportedTransactionVersion"];
    const result: Record<string, unknown> = {
      blockHeight: block.slot,
      blockTime: block.blockTime,
      blockhash: block.blockhash,
      parentSlot: Math.max(0, block.slot - 1),
      previousBlockhash: block.previousBlockhash,
    };
    if (cfg["rewards"] !== false) result["rewards"] = [];
    if (details === "signatures") {
      result["signatures"] = [...block.signatures];
    } else if (details === "full") {
      result["transactions"] = block.signatures.map((signature) => {
        const record = chain.getTransaction(signature)!;
        if (record.transaction.message.version === 0 && maxVersion !== 0) {
          throw new RpcError(
            RpcCode.unsupportedTransactionVersion,
            'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
          );
        }
        const { meta, transaction, version } = encodeTransaction(
          record,
          encoding,
          maxVersion !== undefined && maxVersion !== null,
        );
        return version === undefined ? { meta, transaction } : { meta, transaction, version };
      });
    } else if (details !== "none") {
      throw invalidParams(`Invalid params: unsupported transactionDetails ${JSON.stringify(details)}`);
    }
    return result;
  });
  const blocksBetween = (start: number, end: number, commitment: Commitment) => {
    const last = Math.min(end, chain.slotAt(commitment));
    if (last - start > 500_000) throw invalidParams("Slot range too large; max 500000");
    const slots: number[] = [];
    for (let slot = start; slot <= last; slot += 1) slots.push(slot);
    return slots;
  };
  add("getBlocks", (params) => {
    const start = slotParam(params[0], "start slot");
    const hasEnd = typeof params[1] === "number";
    const cfg = config(params, hasEnd ? 2 : 1);
    const commitment = atLeastConfirmed(cfg);
    const end = hasEnd ? slotParam(params[1], "end slot") : chain.slotAt(commitment);
    return blocksBetween(start, end, commitment);
  });
  add("getBlocksWithLimit", (params) => {
    const start = slotParam(params[0], "start slot");
    const limit = slotParam(params[1], "limit");
    const commitment = atLeastConfirmed(config(params, 2));
    return limit === 0 ? [] : blocksBetween(start, start + limit - 1, commitment);
  });
  add("getBlockTime", (params) => {
    const slot = slotParam(params[0], "slot");
    const block = slot <= chain.slotAt("finalized") ? chain.getBlock(slot) : undefined;
    if (!block) throw blockNotAvailable(slot);
    return block.blockTime;
  });
  add("getFirstAvailableBlock", () => 0);
  add("getSignaturesForAddress", (params) => {
    const key = pubkey(params[0]);
    const cfg = config(params, 1);
    const commitment = atLeastConfirmed(cfg);
    checkMinContextSlot(cfg, commitment);
    const limitValue = cfg["limit"] ?? MAX_SIGNATURES_LIMIT;
    if (typeof limitValue !== "number" || limitValue < 1 || limitValue > MAX_SIGNATURES_LIMIT) {
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
    }
    const all = chain.signaturesForAddress(key);
    let start = all.length - 1;
    const before = cfg["before"];
    if (typeof before === "string") {
      const index = all.lastIndexOf(before);
      if (index < 0) return [];
      start = index - 1;
    }
    const until = typeof cfg["until"] === "string" ? cfg["until"] : null;
    const out: unknown[] = [];
    for (let index = start; index >= 0 && out.length < limitValue; index -= 1) {
      const signature = all[index]!;
      if (signature === until) break;
      const record = chain.getTransaction(signature);
      if (!record || !visible(record, commitment)) continue;
      out.push({
        blockTime: record.blockTime,
        confirmationStatus: chain.commitmentOf(record),
        err: record.err,
        memo: record.memo,
        signature,
        slot: record.slot,
      });
    }
    return out;
  });
  add("getTokenAccountsByOwner", (params) => {
    const owner = pubkey(params[0]);
    const filter = config(params, 1);
    const cfg = config(params, 2);
    const commitment = commitmentOf(cfg);
    let mint: string | null = null;
    let programId: string | null = null;
    if (typeof filter["mint"] === "string") {
      mint = pubkey(filter["mint"]);
      const mintAccount = chain.getAccount(mint, commitment);
      if (!mintAccount || !decodeMint(mintAccount.owner, mintAccount.data)) {
        throw invalidParams("Invalid param: could not find mint");
      }
    } else if (typeof filter["programId"] === "string") {
      programId = pubkey(filter["programId"]);
      if (!isTokenProgram(programId)) throw invalidParams("Invalid param: unrecognized Token program id");
    } else {
      throw invalidParams("Invalid params: expected a mint or programId filter");
    }
    const encoding = accountEncoding(cfg["encoding"], "base58");
    const value: unknown[] = [];
    for (const key of chain.tokenAccountsByOwner(owner)) {
      const account = chain.getAccount(key, commitment);
      const token = account && decodeTokenAccount(account.owner, account.data);
      if (!account || !token || token.owner !== owner) continue;
      if (mint !== null && token.mint !== mint) continue;
      if (programId !== null && account.owner !== programId) continue;
      value.push({ account: encodeAccount(account, encoding, decimalsOf), pubkey: key });
    }
    return { context: context(commitment), value };
  });
  add("getTokenAccountBalance", (params) => {
    const cfg = config(params, 1);
    const commitment = commitmentOf(cfg);
    const account = chain.getAccount(pubkey(params[0]), commitment);
    const token = account && decodeTokenAccount(account.owner, account.data);
    if (!token) throw invalidParams("Invalid param: not a Token account");
    return { context: context(commitment), value: uiTokenAmount(token.amount, decimalsOf(token.mint) ?? 0) };
  });
  add("getTokenSupply", (params) => {
    const commitment = commitmentOf(config(params, 1));
    const account = chain.getAccount(pubkey(params[0]), commitment);
    const mint = account && decodeMint(account.owner, account.data);
    if (!mint) throw invalidParams("Invalid param: not a Token mint");
    return { context: context(commitment), value: uiTokenAmount(mint.supply, mint.decimals) };
  });
  add("requestAirdrop", (params) => {
    const lamports = params[1];
    if (typeof lamports !== "number" || !Number.isSafeInteger(lamports) || lamports <= 0) {
      throw invalidParams("Invalid params: expected a lamport amount");
    }
    return faucet.airdrop(pubkey(params[0]), BigInt(lamports));
  });
  return methods;
}

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Runs one JSON-RPC request object; returns null for notifications (no id). */
export function runRpcRequest(methods: Map<string, Method>, request: unknown): object | null {
  const req = (request ?? {}) as JsonRpcRequest;
  const id = req.id ?? null;
  const fail = (code: number, message: string, data?: unknown) => ({
    error: data === undefined ? { code, message } : { code, data, message },
    id,
    jsonrpc: "2.0",
  });
  if (
    typeof request !== "object" ||
    request === null ||
    req.jsonrpc !== "2.0" ||
    typeof req.method !== "string"
  ) {
    return fail(RpcCode.invalidRequest, "Invalid request");
  }
  const method = methods.get(req.method);
  if (!method) return fail(RpcCode.methodNotFound, "Method not found");
  const params = req.params === undefined || req.params === null ? [] : req.params;
  if (!Array.isArray(params)) return fail(RpcCode.invalidParams, "Invalid params: expected an array");
  try {
    const result = method(params);
    return { id, jsonrpc: "2.0", result };
  } catch (error) {
    if (error instanceof RpcError) return fail(error.code, error.message, error.data);
    return fail(
      RpcCode.internalError,
      `Internal error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
