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

export function createSignatureTracker(options: SignatureTrackerOptions): SignatureTracker {
  const { connection, lookup, log, publish, pollMs, giveUpMs } = options;
  const batchSize = options.batchSize ?? 256;
  const rememberSettled = options.rememberSettled ?? 100_000;
  const tracked = new Map<string, Tracked>();
  const settled = new Set<string>();
  let loop: Repeating | undefined;

  function settle(signature: string) {
    tracked.delete(signature);
    settled.add(signature);
    if (settled.size > rememberSettled) settled.delete(settled.values().next().value!);
  }

  type Commitment = "confirmed" | "finalized";
  type Read = VersionedTransactionResponse | null;

  async function read(signature: string, commitment: Commitment): Promise<Read> {
    return connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 });
  }

  /** The read a status calls for: at `finalized` the transaction is read again, at `confirmed` once. */
  function readNeeded(entry: Tracked, status: Status | null): Commitment | null {
    if (!status || status.err) return null;
    if (status.confirmationStatus === "finalized") return "finalized";
    return entry.seen ? null : "confirmed";
  }

  /**
   * Every transaction a poll must read, in one JSON-RPC batch per commitment rather than one
   * request each: each request costs the watcher and the RPC node an HTTP exchange, two a
   * payment. A signature missing from the answer (a lone one, or all of a failed batch) is read
   * alone by its step, so a transaction the node cannot return fails only its own step, retried
   * at the next poll, as before.
   */
  async function readAll(wanted: { signature: string; commitment: Commitment }[]) {
    const reads = new Map<string, Read>();
    const readBatch = async (commitment: Commitment) => {
      const signatures = wanted.filter((w) => w.commitment === commitment).map((w) => w.signature);
      if (signatures.length < 2) return;
      const batch = await connection
        .getTransactions(signatures, { commitment, maxSupportedTransactionVersion: 0 })
        .catch((err: unknown) => {
          log.warn({ err, count: signatures.length }, "batched transaction read failed; reading each");
          return null;
        });
      if (!batch) return;
      for (const [n, signature] of signatures.entries()) reads.set(signature, batch[n] ?? null);
    };
    await Promise.all([readBatch("confirmed"), readBatch("finalized")]);
    return reads;
  }

  async function publishAll(deposits: FoundDeposit[], signature: string, stage: DepositStage) {
    // In order: a transfer's seen report goes out before its final one.
    for (const deposit of deposits) await publish(deposit, signature, stage);
  }

  /** `tx`: the transaction as the poll's batch read it, if it did. */
  async function step(entry: Tracked, status: Status | null, tx: Read | undefined) {
    const now = Date.now();
    if (!status) {
      if (now - (entry.seen ? entry.lastFoundAt : entry.firstHintAt) < giveUpMs) return;
      if (entry.seen?.length) {
        log.warn({ signature: entry.signature }, "seen transaction vanished; deposits dropped");
        await publishAll(entry.seen, entry.signature, "dropped");
      }
      settle(entry.signature);
      return;
    }
    entry.lastFoundAt = now;
    if (status.err) {
      if (entry.seen?.length) await publishAll(entry.seen, entry.signature, "dropped");
      settle(entry.signature);
      return;
    }
    if (status.confirmationStatus === "finalized") {
      const finalized = tx !== undefined ? tx : await read(entry.signature, "finalized");
      if (!finalized) return;
      const deposits = found(finalized);
      if (!entry.seen) await publishAll(deposits, entry.signature, "seen");
      await publishAll(deposits, entry.signature, "final");
      settle(entry.signature);
      return;
    }
    if (!entry.seen) {
      const confirmed = tx !== undefined ? tx : await read(entry.signature, "confirmed");
      if (!confirmed) return;
      const deposits = found(confirmed);
      if (deposits.length === 0) {
        settle(entry.signature);
        return;
      }
      await publishAll(deposits, entry.signature, "seen");
      entry.seen = deposits;
    }
  }

  function found(tx: VersionedTransactionResponse) {
    return depositsInTransaction(tx, lookup);
  }

  async function poll() {
    // Signatures stay tracked meanwhile; their reports go out once crediting resumes.
    if (options.crediting?.() === false) return;
    const entries = [...tracked.values()];
    for (let i = 0; i < entries.length; i += batchSize) {
      const batch = entries.slice(i, i + batchSize);
      const { value } = await connection.getSignatureStatuses(
        batch.map((e) => e.signature),
        { searchTransactionHistory: true },
      );
      const wanted = batch.flatMap((entry, j) => {
        const commitment = readNeeded(entry, value[j] ?? null);
        return commitment ? [{ signature: entry.signature, commitment }] : [];
      });
      const reads = await readAll(wanted);
      await Promise.all(
        batch.map((entry, j) =>
          step(entry, value[j] ?? null, reads.get(entry.signature)).catch((err) =>
            log.warn({ err, signature: entry.signature }, "signature step failed; retried next poll"),
          ),
        ),
      );
    }
  }

  return {
    hint(signature) {
      if (tracked.has(signature) || settled.has(signature)) return;
      const now = Date.now();
      tracked.set(signature, { signature, firstHintAt: now, seen: null, lastFoundAt: now });
    },
    knows: (signature) => tracked.has(signature) || settled.has(signature),
    tracked: () => tracked.size,
    start() {
      loop = repeatEvery(pollMs, poll, (err) => log.warn({ err }, "signature poll failed"));
    },
    async stop() {
      await loop?.stop();
    },
  };
}
