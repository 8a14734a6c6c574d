// The ledger behind the RPC: litesvm executes, this module adds what a validator has
// and litesvm lacks: slots on a clock, a window of valid blockhashes, commitment levels,
// a signature index, pre/post balances and a finalized view of accounts.

import { createHash } from "node:crypto";
import { address, getBase58Decoder, getTransactionDecoder } from "@solana/kit";
import { PublicKey, VersionedTransaction } from "@solana/web3.js";
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { getOrCreate } from "./collections.js";
import {
  RpcCode,
  RpcError,
  type TransactionErrorJson,
  transactionErrorJson,
  transactionErrorText,
} from "./errors.js";
import { computeFee } from "./fees.js";
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
} from "./token.js";

export type Commitment = "processed" | "confirmed" | "finalized";

export interface AccountSnapshot {
  readonly lamports: bigint;
  readonly data: Uint8Array;
  readonly owner: string;
  readonly executable: boolean;
}

export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  readonly amount: bigint;
  readonly decimals: number;
}

export interface CompiledInnerInstruction {
  readonly programIdIndex: number;
  readonly accounts: number[];
  readonly data: Uint8Array;
  readonly stackHeight: number;
}

export interface TransactionRecord {
  readonly signature: string;
  readonly slot: number;
  readonly blockTime: number;
  readonly transaction: VersionedTransaction;
  readonly accountKeys: readonly string[];
  readonly err: TransactionErrorJson | null;
  readonly fee: bigint;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalance[];
  readonly postTokenBalances: readonly TokenBalance[];
  readonly logs: readonly string[];
  readonly innerInstructions: readonly { index: number; instructions: CompiledInnerInstruction[] }[];
  readonly computeUnitsConsumed: number;
  readonly memo: string | null;
  /**
   * Writable accounts as they were after this transaction, for account notifications;
   * emptied once the transaction is finalized and its `finalized` listeners have run.
   */
  readonly writableAfter: ReadonlyMap<string, AccountSnapshot | null>;
}

export interface SimulationResult {
  readonly err: TransactionErrorJson | null;
  readonly logs: readonly string[];
  readonly unitsConsumed: number;
  readonly accounts: ReadonlyMap<string, AccountSnapshot | null>;
}

/** A slot's block: every slot has one here (no skipped slots, no forks). */
export interface BlockInfo {
  readonly slot: number;
  readonly blockhash: string;
  readonly previousBlockhash: string;
  readonly blockTime: number;
  /** Signatures of the transactions that landed in the slot, in execution order. */
  readonly signatures: readonly string[];
}

export interface ChainEvents {
  /** A transaction landed (it is processed and, on this network, confirmed at once). */
  transaction(record: TransactionRecord): void;
  slot(slot: number, finalizedSlot: number): void;
  /** Transactions that reached `finalized` with this slot advance. */
  finalized(records: readonly TransactionRecord[], finalizedSlot: number): void;
}

export interface ChainOptions {
  /** Slots finalize this many slots after they are produced. */
  readonly finalitySlots: number;
  /** A blockhash can be used for this many slots after the slot that produced it. */
  readonly blockhashExpirySlots: number;
  readonly now?: () => number;
}

export interface Chain {
  readonly svm: LiteSVM;
  slot(): number;
  finalizedSlot(): number;
  slotAt(commitment: Commitment): number;
  /** Produces the next slot: new blockhash, clock update, finality advance. */
  advanceSlot(): void;
  /** The blockhash of the newest slot at that commitment, valid until `lastValidBlockHeight`. */
  latestBlockhash(commitment: Commitment): { blockhash: string; lastValidBlockHeight: number };
  isBlockhashValid(blockhash: string): boolean;
  getAccount(address: string, commitment: Commitment): AccountSnapshot | null;
  mintDecimals(mint: string): number | null;
  /** Executes a signed wire transaction; preflight failures throw the validator's RpcError. */
  sendTransaction(bytes: Uint8Array, options: { skipPreflight: boolean }): string;
  simulateTransaction(
    bytes: Uint8Array,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean; accounts: readonly string[] },
  ): SimulationResult;
  getTransaction(signature: string): TransactionRecord | undefined;
  /** The block of a produced slot (up to the current one), or undefined. */
  getBlock(slot: number): BlockInfo | undefined;
  commitmentOf(record: TransactionRecord): Commitment;
  /** Signatures that touched the address, oldest first. */
  signaturesForAddress(address: string): readonly string[];
  tokenAccountsByOwner(owner: string): readonly string[];
  transactionCount(): number;
  on<E extends keyof ChainEvents>(event: E, listener: ChainEvents[E]): () => void;
}

const base58 = getBase58Decoder();

type NativeResult = TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata };

/** The parts of litesvm's napi binding (`LiteSVM.inner`) used directly, all optional. */
interface NativeSvm {
  getAccount?: (address: Uint8Array) => NativeAccount | null;
  sendLegacyTransaction?: (bytes: Uint8Array) => NativeResult;
  sendVersionedTransaction?: (bytes: Uint8Array) => NativeResult;
  simulateLegacyTransaction?: (bytes: Uint8Array) => NativeResult;
  simulateVersionedTransaction?: (bytes: Uint8Array) => NativeResult;
}

interface NativeAccount {
  lamports(): bigint;
  data(): Uint8Array;
  owner(): Uint8Array;
  executable(): boolean;
}
const transactionDecoder = getTransactionDecoder();
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const NONCE_ACCOUNT_SIZE = 80;

export function createChain(options: ChainOptions): Chain {
  const now = options.now ?? Date.now;
  const svm = new LiteSVM();
  // The validator accepts any blockhash of the last N slots; litesvm knows only its
  // latest one, so its check is off and the window below decides.
  svm.withBlockhashCheck(false);

  let slot = 0;
  // Per slot, from slot 0: its blockhash, its time and the transactions that landed in it.
  const slotBlockhash: string[] = [];
  const slotTime: number[] = [];
  const slotSignatures = new Map<number, string[]>();
  const blockhashSlots = new Map<string, number>();
  const records = new Map<string, TransactionRecord>();
  const unfinalized: TransactionRecord[] = [];
  const byAddress = new Map<string, string[]>();
  const tokenAccountsOf = new Map<string, Set<string>>();
  const decimalsOf = new Map<string, number>();
  // Per account, its state before each unfinalized slot that wrote it: a `finalized`
  // read returns the state before the first write after the finalized slot.
  const preStates = new Map<string, { slot: number; state: AccountSnapshot | null }[]>();
  const listeners: { [E in keyof ChainEvents]: Set<ChainEvents[E]> } = {
    transaction: new Set(),
    slot: new Set(),
    finalized: new Set(),
  };

  const setClock = () => {
    const unix = BigInt(Math.floor(now() / 1000));
    svm.setClock(new Clock(BigInt(slot), unix, 0n, 0n, unix));
  };
  setClock();
  blockhashSlots.set(svm.latestBlockhash(), slot);
  slotBlockhash.push(svm.latestBlockhash());
  slotTime.push(Math.floor(now() / 1000));

  const finalizedSlot = () => Math.max(0, slot - options.finalitySlots);

  // Per-transaction bookkeeping reads every account key twice, so reads go straight to
  // litesvm's native binding: its wrapper re-encodes addresses through base58 and copies
  // the whole account data (a program account is ~130 KB, ~700 µs a read). Read-only
  // accounts that cannot hold a token balance are read without their data (~15 µs).
  const native = (svm as unknown as { inner?: NativeSvm }).inner;
  const ownerNames = new Map<string, string>();

  function ownerName(ownerBytes: Uint8Array): string {
    const ownerId = Buffer.from(ownerBytes).toString("latin1");
    let owner = ownerNames.get(ownerId);
    if (owner === undefined) {
      owner = base58.decode(ownerBytes);
      ownerNames.set(ownerId, owner);
    }
    return owner;
  }

  function read(key: string, keyBytes: Uint8Array, withData: boolean): AccountSnapshot | null {
    if (typeof native?.getAccount !== "function") {
      const account = svm.getAccount(address(key));
      if (!account.exists) return null;
      return {
        lamports: account.lamports,
        data: new Uint8Array(account.data),
        owner: account.programAddress,
        executable: account.executable,
      };
    }
    const account = native.getAccount(keyBytes);
    if (!account) return null;
    const owner = ownerName(account.owner());
    return {
      lamports: account.lamports(),
      data: withData || isTokenProgram(owner) ? new Uint8Array(account.data()) : new Uint8Array(),
      owner,
      executable: account.executable(),
    };
  }

  // The wire bytes go to the binding as they are: the wrapper would decode them into a
  // kit Transaction and encode them again, which costs more than executing a transfer.
  function execute(
    bytes: Uint8Array,
    version: "legacy" | number,
    mode: "send" | "simulate",
  ): TransactionMetadata | FailedTransactionMetadata | { meta(): TransactionMetadata } {
    const legacy = version === "legacy";
    const method = native?.[`${mode}${legacy ? "Legacy" : "Versioned"}Transaction`];
    if (typeof method === "function") return method.call(native, bytes);
    const kitTx = transactionDecoder.decode(bytes);
    return mode === "send" ? svm.sendTransaction(kitTx) : svm.simulateTransaction(kitTx);
  }

  function readCurrent(key: string): AccountSnapshot | null {
    return read(key, new PublicKey(key).toBytes(), true);
  }

  function getAccount(key: string, commitment: Commitment): AccountSnapshot | null {
    if (commitment === "finalized") {
      const history = preStates.get(key);
      const fin = finalizedSlot();
      const first = history?.find((entry) => entry.slot > fin);
      if (first) return first.state;
    }
    return readCurrent(key);
  }

  function mintDecimals(mint: string): number | null {
    const known = decimalsOf.get(mint);
    if (known !== undefined) return known;
    const account = readCurrent(mint);
    const decoded = account && decodeMint(account.owner, account.data);
    if (!decoded) return null;
    decimalsOf.set(mint, decoded.decimals);
    return decoded.decimals;
  }

  function tokenBalances(
    keys: readonly string[],
    states: readonly (AccountSnapshot | null)[],
  ): TokenBalance[] {
    const balances: TokenBalance[] = [];
    states.forEach((state, accountIndex) => {
      const token = state && decodeTokenAccount(state.owner, state.data);
      if (!state || !token) return;
      balances.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: state.owner,
        amount: token.amount,
        decimals: mintDecimals(token.mint) ?? 0,
      });
      const key = keys[accountIndex];
      if (key !== undefined) {
        getOrCreate(tokenAccountsOf, token.owner, () => new Set<string>()).add(key);
      }
    });
    return balances;
  }

  function decode(bytes: Uint8Array): VersionedTransaction {
    try {
      return VersionedTransaction.deserialize(bytes);
    } catch (cause) {
      throw new RpcError(
        RpcCode.invalidParams,
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${String(cause)}`,
      );
    }
  }

  function preflightError(
    err: TransactionErrorJson,
    logs: readonly string[],
    unitsConsumed: number,
  ): RpcError {
    return new RpcError(
      RpcCode.sendTransactionPreflightFailure,
      `Transaction simulation failed: ${transactionErrorText(err)}`,
      {
        accounts: null,
        err,
        innerInstructions: null,
        loadedAccountsDataSize: 0,
        logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed,
      },
    );
  }

  function memoOf(tx: VersionedTransaction, keys: readonly string[]): string | null {
    const memos: string[] = [];
    for (const ix of tx.message.compiledInstructions) {
      const program = keys[ix.programIdIndex];
      if (program === MEMO_PROGRAM_ID || program === MEMO_V1_PROGRAM_ID) {
        const text = Buffer.from(ix.data).toString("utf8");
        memos.push(`[${ix.data.length}] ${text}`);
      }
    }
    return memos.length > 0 ? memos.join("; ") : null;
  }

  function emit<E extends keyof ChainEvents>(event: E, ...args: Parameters<ChainEvents[E]>): void {
    for (const listener of listeners[event]) {
      (listener as (...a: Parameters<ChainEvents[E]>) => void)(...args);
    }
  }

  function sendTransaction(bytes: Uint8Array, sendOptions: { skipPreflight: boolean }): string {
    const tx = decode(bytes);
    const firstSignature = tx.signatures[0];
    if (!firstSignature) throw new RpcError(RpcCode.invalidParams, "transaction has no signatures");
    const signature = base58.decode(firstSignature);
    const message = tx.message;
    if (message.addressTableLookups.length > 0) {
      throw new RpcError(
        RpcCode.invalidParams,
        "address lookup tables are not supported by the local network",
      );
    }
    const notLanded = (err: TransactionErrorJson): string => {
      if (sendOptions.skipPreflight) return signature;
      throw preflightError(err, [], 0);
    };
    if (records.has(signature)) return notLanded("AlreadyProcessed");
    const nonce = durableNonceOf(message);
    if (!isBlockhashValid(message.recentBlockhash) && !nonce) return notLanded("BlockhashNotFound");

    if (!sendOptions.skipPreflight) {
      const simulated = execute(bytes, message.version, "simulate");
      if (simulated instanceof FailedTransactionMetadata) {
        const meta = simulated.meta();
        throw preflightError(
          transactionErrorJson(simulated),
          meta.logs(),
          Number(meta.computeUnitsConsumed()),
        );
      }
    }

    const keys = message.staticAccountKeys.map((key) => key.toBase58());
    const writable = keys.map((_, index) => message.isAccountWritable(index));
    const pre = keys.map((key, index) =>
      read(key, message.staticAccountKeys[index]!.toBytes(), writable[index]!),
    );
    const result = execute(bytes, message.version, "send");
    const failed = result instanceof FailedTransactionMetadata ? result : null;
    const meta: TransactionMetadata = failed ? failed.meta() : (result as TransactionMetadata);
    const post = keys.map((key, index) =>
      writable[index] ? read(key, message.staticAccountKeys[index]!.toBytes(), true) : pre[index]!,
    );
    // A transaction that fails before execution (bad signature, no fee funds) is never
    // included in a block: the fee payer is untouched, and nothing is recorded.
    if (failed && pre[0]?.lamports === post[0]?.lamports) {
      return notLanded(transactionErrorJson(failed));
    }
    // A durable-nonce transaction that fails still advances its nonce, as on a validator, so it
    // can never land again; litesvm rolls the whole transaction back, so do it here.
    if (failed && nonce) {
      advanceNonce(nonce);
      const index = keys.indexOf(nonce.account);
      if (index >= 0) post[index] = read(nonce.account, new PublicKey(nonce.account).toBytes(), true);
    }

    const writableAfter = new Map<string, AccountSnapshot | null>();
    keys.forEach((key, index) => {
      if (!message.isAccountWritable(index)) return;
      writableAfter.set(key, post[index] ?? null);
      const history = getOrCreate(preStates, key, () => []);
      if (history.at(-1)?.slot !== slot) history.push({ slot, state: pre[index] ?? null });
    });

    const record: TransactionRecord = {
      signature,
      slot,
      blockTime: slotTime[slot] ?? Math.floor(now() / 1000),
      transaction: tx,
      accountKeys: keys,
      err: failed ? transactionErrorJson(failed) : null,
      fee: computeFee(message, keys),
      preBalances: pre.map((state) => state?.lamports ?? 0n),
      postBalances: post.map((state) => state?.lamports ?? 0n),
      preTokenBalances: tokenBalances(keys, pre),
      postTokenBalances: tokenBalances(keys, post),
      logs: meta.logs(),
      innerInstructions: meta
        .innerInstructions()
        .map((inner, index) => ({
          index,
          instructions: inner.map((entry) => {
            const compiled = entry.instruction();
            return {
              programIdIndex: compiled.programIdIndex(),
              accounts: Array.from(compiled.accounts()),
              data: compiled.data(),
              stackHeight: entry.stackHeight(),
            };
          }),
        }))
        .filter((entry) => entry.instructions.length > 0),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      memo: memoOf(tx, keys),
      writableAfter,
    };
    records.set(signature, record);
    getOrCreate(slotSignatures, slot, () => []).push(signature);
    unfinalized.push(record);
    for (const key of new Set(keys)) {
      getOrCreate(byAddress, key, () => []).push(signature);
    }
    emit("transaction", record);
    return signature;
  }

  function simulateTransaction(
    bytes: Uint8Array,
    simOptions: { sigVerify: boolean; replaceRecentBlockhash: boolean; accounts: readonly string[] },
  ): SimulationResult {
    const tx = decode(bytes);
    if (
      !simOptions.replaceRecentBlockhash &&
      !isBlockhashValid(tx.message.recentBlockhash) &&
      !durableNonceOf(tx.message)
    ) {
      return { err: "BlockhashNotFound", logs: [], unitsConsumed: 0, accounts: new Map() };
    }
    const kitTx = transactionDecoder.decode(bytes);
    if (!simOptions.sigVerify) svm.withSigverify(false);
    try {
      const simulated = svm.simulateTransaction(kitTx);
      if (simulated instanceof FailedTransactionMetadata) {
        const meta = simulated.meta();
        return {
          err: transactionErrorJson(simulated),
          logs: meta.logs(),
          unitsConsumed: Number(meta.computeUnitsConsumed()),
          accounts: new Map(),
        };
      }
      const after = new Map<string, AccountSnapshot | null>();
      for (const account of simulated.postAccounts()) {
        after.set(account.address, {
          lamports: account.lamports,
          data: new Uint8Array(account.data),
          owner: account.programAddress,
          executable: account.executable,
        });
      }
      const accounts = new Map<string, AccountSnapshot | null>();
      for (const key of simOptions.accounts) {
        accounts.set(key, after.has(key) ? (after.get(key) ?? null) : readCurrent(key));
      }
      const meta = simulated.meta();
      return { err: null, logs: meta.logs(), unitsConsumed: Number(meta.computeUnitsConsumed()), accounts };
    } finally {
      if (!simOptions.sigVerify) svm.withSigverify(true);
    }
  }

  /**
   * The nonce a transaction spends when its first instruction advances a durable nonce and its
   * "recent blockhash" is that nonce's current value: the validator accepts it at any age.
   */
  function durableNonceOf(message: VersionedTransaction["message"]): { account: string } | undefined {
    const first = message.compiledInstructions[0];
    const keys = message.staticAccountKeys;
    if (!first || keys[first.programIdIndex]?.toBase58() !== SYSTEM_PROGRAM) return undefined;
    const data = first.data;
    if (data.length !== 4 || data[0] !== 4 || data[1] !== 0 || data[2] !== 0 || data[3] !== 0)
      return undefined;
    const account = keys[first.accountKeyIndexes[0] ?? -1]?.toBase58();
    const state = account ? readCurrent(account) : null;
    if (!account || !state || state.owner !== SYSTEM_PROGRAM || state.data.length !== NONCE_ACCOUNT_SIZE)
      return undefined;
    const initialized = new DataView(state.data.buffer, state.data.byteOffset).getUint32(4, true) === 1;
    const stored = base58.decode(state.data.subarray(40, 72));
    return initialized && stored === message.recentBlockhash ? { account } : undefined;
  }

  /** What the System program's AdvanceNonceAccount stores: sha256("DURABLE_NONCE" ‖ blockhash). */
  function advanceNonce(nonce: { account: string }): void {
    const current = svm.getAccount(address(nonce.account));
    if (!current.exists) return;
    const data = new Uint8Array(current.data);
    const value = createHash("sha256")
      .update("DURABLE_NONCE")
      .update(new PublicKey(svm.latestBlockhash()).toBytes())
      .digest();
    data.set(value, 40);
    svm.setAccount({ ...current, data });
  }

  function isBlockhashValid(blockhash: string): boolean {
    const produced = blockhashSlots.get(blockhash);
    return produced !== undefined && slot - produced <= options.blockhashExpirySlots;
  }

  function advanceSlot(): void {
    slot += 1;
    setClock();
    svm.expireBlockhash();
    blockhashSlots.set(svm.latestBlockhash(), slot);
    slotBlockhash.push(svm.latestBlockhash());
    slotTime.push(Math.floor(now() / 1000));
    for (const [hash, produced] of blockhashSlots) {
      if (slot - produced <= options.blockhashExpirySlots + 1) break;
      blockhashSlots.delete(hash);
    }
    const fin = finalizedSlot();
    let count = 0;
    while (count < unfinalized.length && unfinalized[count]!.slot <= fin) count += 1;
    const newlyFinal = unfinalized.splice(0, count);
    if (newlyFinal.length > 0) {
      for (const record of newlyFinal) {
        for (const key of record.writableAfter.keys()) {
          const history = preStates.get(key);
          if (!history) continue;
          while (history.length > 0 && history[0]!.slot <= fin) history.shift();
          if (history.length === 0) preStates.delete(key);
        }
      }
    }
    emit("slot", slot, fin);
    if (newlyFinal.length > 0) {
      emit("finalized", newlyFinal, fin);
      // Account data is kept only while a finalized view or a notification may need it.
      for (const record of newlyFinal) (record.writableAfter as Map<string, AccountSnapshot | null>).clear();
    }
  }

  // Slot 0 is genesis; transactions land from slot 1, so none is finalized before
  // `finalitySlots` slots have passed (the finalized slot never goes below 0).
  advanceSlot();

  return {
    svm,
    slot: () => slot,
    finalizedSlot,
    slotAt: (commitment) => (commitment === "finalized" ? finalizedSlot() : slot),
    advanceSlot,
    latestBlockhash: (commitment) => {
      let blockhash: string = svm.latestBlockhash();
      let produced = slot;
      const wanted = commitment === "finalized" ? finalizedSlot() : slot;
      if (wanted !== slot) {
        for (const [hash, hashSlot] of blockhashSlots) {
          if (hashSlot <= wanted) {
            blockhash = hash;
            produced = hashSlot;
          }
        }
      }
      return { blockhash, lastValidBlockHeight: produced + options.blockhashExpirySlots };
    },
    isBlockhashValid,
    getAccount,
    mintDecimals,
    sendTransaction,
    simulateTransaction,
    getTransaction: (signature) => records.get(signature),
    getBlock(blockSlot) {
      const blockhash = slotBlockhash[blockSlot];
      if (blockhash === undefined || !Number.isInteger(blockSlot)) return undefined;
      return {
        slot: blockSlot,
        blockhash,
        // Genesis has no parent; the validator reports the genesis blockhash again.
        previousBlockhash: slotBlockhash[blockSlot - 1] ?? blockhash,
        blockTime: slotTime[blockSlot] ?? 0,
        signatures: slotSignatures.get(blockSlot) ?? [],
      };
    },
    commitmentOf: (record) => (record.slot <= finalizedSlot() ? "finalized" : "confirmed"),
    signaturesForAddress: (key) => byAddress.get(key) ?? [],
    tokenAccountsByOwner: (owner) => [...(tokenAccountsOf.get(owner) ?? [])],
    transactionCount: () => records.size,
    on(event, listener) {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
    },
  };
}
