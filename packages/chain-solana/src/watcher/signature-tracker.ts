// Follows each hinted signature on chain: at `confirmed` its deposits are reported as seen,
// at `finalized` they are re-read and reported as final, and a failed transaction (or one
// that vanished after being seen) is reported as dropped. A hint that names no transaction
// is forgotten after a while and changes nothing.
import type { Logger } from "@gateway/logging";
import { type Repeating, repeatEvery } from "@gateway/watcher-kit";
import type { Connection, VersionedTransactionResponse } from "@solana/web3.js";
import { type DepositLookup, depositsInTransaction, type FoundDeposit } from "./deposits-in-transaction.js";

export type DepositStage = "seen" | "final" | "dropped";

export interface SignatureTracker {
  /** A signature that may concern an open address (webhook or reconciliation). */
  hint(signature: string): void;
  /** Whether the signature is being followed or was settled recently. */
  knows(signature: string): boolean;
  tracked(): number;
  start(): void;
  stop(): Promise<void>;
}

export interface SignatureTrackerOptions {
  connection: Connection;
  lookup: DepositLookup;
  log: Logger;
  publish(deposit: FoundDeposit, signature: string, stage: DepositStage): Promise<void>;
  pollMs: number;
  /** A signature the chain does not know after this long is forgotten (or dropped, if seen). */
  giveUpMs: number;
  /** Settled signatures remembered to skip repeats; older ones may be read again (harmless). */
  rememberSettled?: number;
  /** Signatures per getSignatureStatuses call (the RPC limit is 256). */
  batchSize?: number;
  /** False while the chain preflight fails: nothing is polled or reported (packages/chain-preflight). */
  crediting?: () => boolean;
}

interface Status {
  err: unknown;
  confirmationStatus?: string;
}

interface Tracked {
  signature: string;
  firstHintAt: number;
  /** Deposits reported as seen, once the transaction was read at `confirmed`. */
  seen: FoundDeposit[] | null;
  lastFoundAt: number;
}

type Commitment = "confirmed" | "finalized";
type Read = VersionedTransactionResponse | null;

/** The read a status calls for: at `finalized` the transaction is read again, at `confirmed` once. */
function readNeeded(entry: Tracked, status: Status | null): Commitment | null {
  if (!status || status.err) return null;
  if (status.confirmationStatus === "finalized") return "finalized";
  return entry.seen ? null : "confirmed";
}

export function createSignatureTracker(options: SignatureTrackerOptions): SignatureTracker {
  return new Tracker(options);
}

class Tracker implements SignatureTracker {
  readonly #o: SignatureTrackerOptions;
  readonly #batchSize: number;
  readonly #rememberSettled: number;
  readonly #tracked = new Map<string, Tracked>();
  readonly #settled = new Set<string>();
  #loop: Repeating | undefined;

  constructor(options: SignatureTrackerOptions) {
    this.#o = options;
    this.#batchSize = options.batchSize ?? 256;
    this.#rememberSettled = options.rememberSettled ?? 100_000;
  }

  hint(signature: string): void {
    if (this.knows(signature)) return;
    const now = Date.now();
    this.#tracked.set(signature, { signature, firstHintAt: now, seen: null, lastFoundAt: now });
  }

  knows(signature: string): boolean {
    return this.#tracked.has(signature) || this.#settled.has(signature);
  }

  tracked(): number {
    return this.#tracked.size;
  }

  start(): void {
    this.#loop = repeatEvery(
      this.#o.pollMs,
      () => this.#poll(),
      (err) => this.#o.log.warn({ err }, "signature poll failed"),
    );
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
  }

  #settle(signature: string) {
    this.#tracked.delete(signature);
    this.#settled.add(signature);
    if (this.#settled.size > this.#rememberSettled)
      this.#settled.delete(this.#settled.values().next().value!);
  }

  async #read(signature: string, commitment: Commitment): Promise<Read> {
    return this.#o.connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 });
  }

  /**
   * Every transaction a poll must read, in one JSON-RPC batch per commitment rather than one
   * request each: each request costs the watcher and the RPC node an HTTP exchange, two a
   * payment. A signature missing from the answer (a lone one, or all of a failed batch) is read
   * alone by its step, so a transaction the node cannot return fails only its own step, retried
   * at the next poll.
   */
  async #readAll(wanted: { signature: string; commitment: Commitment }[]) {
    const reads = new Map<string, Read>();
    const readBatch = async (commitment: Commitment) => {
      const signatures = wanted.filter((w) => w.commitment === commitment).map((w) => w.signature);
      if (signatures.length < 2) return;
      const batch = await this.#o.connection
        .getTransactions(signatures, { commitment, maxSupportedTransactionVersion: 0 })
        .catch((err: unknown) => {
          this.#o.log.warn(
            { err, count: signatures.length },
            "batched transaction read failed; reading each",
          );
          return null;
        });
      if (!batch) return;
      for (const [n, signature] of signatures.entries()) reads.set(signature, batch[n] ?? null);
    };
    await Promise.all([readBatch("confirmed"), readBatch("finalized")]);
    return reads;
  }

  async #publishAll(deposits: FoundDeposit[], signature: string, stage: DepositStage) {
    // In order: a transfer's seen report goes out before its final one.
    for (const deposit of deposits) await this.#o.publish(deposit, signature, stage);
  }

  #found(tx: VersionedTransactionResponse) {
    return depositsInTransaction(tx, this.#o.lookup);
  }

  /** `tx`: the transaction as the poll's batch read it, if it did. */
  async #step(entry: Tracked, status: Status | null, tx: Read | undefined) {
    const now = Date.now();
    if (!status) return this.#unknown(entry, now);
    entry.lastFoundAt = now;
    if (status.err) {
      if (entry.seen?.length) await this.#publishAll(entry.seen, entry.signature, "dropped");
      this.#settle(entry.signature);
      return;
    }
    if (status.confirmationStatus === "finalized") return this.#finalized(entry, tx);
    if (!entry.seen) await this.#confirmed(entry, tx);
  }

  /** The chain does not know the signature (any more): given up on after `giveUpMs`. */
  async #unknown(entry: Tracked, now: number) {
    if (now - (entry.seen ? entry.lastFoundAt : entry.firstHintAt) < this.#o.giveUpMs) return;
    if (entry.seen?.length) {
      this.#o.log.warn({ signature: entry.signature }, "seen transaction vanished; deposits dropped");
      await this.#publishAll(entry.seen, entry.signature, "dropped");
    }
    this.#settle(entry.signature);
  }

  async #finalized(entry: Tracked, tx: Read | undefined) {
    const finalized = tx !== undefined ? tx : await this.#read(entry.signature, "finalized");
    if (!finalized) return;
    const deposits = this.#found(finalized);
    if (!entry.seen) await this.#publishAll(deposits, entry.signature, "seen");
    await this.#publishAll(deposits, entry.signature, "final");
    this.#settle(entry.signature);
  }

  async #confirmed(entry: Tracked, tx: Read | undefined) {
    const confirmed = tx !== undefined ? tx : await this.#read(entry.signature, "confirmed");
    if (!confirmed) return;
    const deposits = this.#found(confirmed);
    if (deposits.length === 0) {
      this.#settle(entry.signature);
      return;
    }
    await this.#publishAll(deposits, entry.signature, "seen");
    entry.seen = deposits;
  }

  async #poll() {
    // Signatures stay tracked meanwhile; their reports go out once crediting resumes.
    if (this.#o.crediting?.() === false) return;
    const entries = [...this.#tracked.values()];
    for (let i = 0; i < entries.length; i += this.#batchSize) {
      await this.#pollBatch(entries.slice(i, i + this.#batchSize));
    }
  }

  async #pollBatch(batch: Tracked[]) {
    const { value } = await this.#o.connection.getSignatureStatuses(
      batch.map((e) => e.signature),
      { searchTransactionHistory: true },
    );
    const wanted = batch.flatMap((entry, j) => {
      const commitment = readNeeded(entry, value[j] ?? null);
      return commitment ? [{ signature: entry.signature, commitment }] : [];
    });
    const reads = await this.#readAll(wanted);
    await Promise.all(
      batch.map((entry, j) =>
        this.#step(entry, value[j] ?? null, reads.get(entry.signature)).catch((err) =>
          this.#o.log.warn({ err, signature: entry.signature }, "signature step failed; retried next poll"),
        ),
      ),
    );
  }
}
