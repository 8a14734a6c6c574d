// What became of the transactions settlement is waiting for, asked for all of them at once: one
// getSignatureStatuses per poll for every intent in flight; only for those the chain does not show
// yet, one look at each blockhash or nonce they share, then their statuses again.
import type { Logger } from "@gateway/logging";
import type { Connection, SignatureStatus } from "@solana/web3.js";
import { conditionHolds, conditionKey, landingCondition } from "./transaction-outcome.js";

export type Fate = { state: "final"; txid: string } | { state: "pending" } | { state: "dead"; why: string };

/** A transaction signed and recorded for an intent (intent-journal.ts). */
export interface SentTransaction {
  signature: string;
  message: Uint8Array;
  wire: Uint8Array;
  nonceAccount: string | null;
}

export interface LandingPoller {
  /**
   * The transaction's fate, read at the next poll. Whether it can still land is read before its
   * status: if it could not land any more at that moment and the status read afterwards does not
   * show it, it never will. One not seen yet that can still land is sent again (the same bytes;
   * harmless if already in flight). Rejects when the chain could not be asked.
   */
  fateOf(sent: SentTransaction): Promise<Fate>;
}

/** The RPC's limit on signatures per getSignatureStatuses call. */
const STATUS_BATCH = 256;

interface Waiting {
  sent: SentTransaction;
  resolve(fate: Fate): void;
  reject(error: unknown): void;
}

export function createLandingPoller(options: LandingPollerOptions): LandingPoller {
  return new Poller(options);
}

export interface LandingPollerOptions {
  connection: Connection;
  log: Logger;
  pollMs: number;
}

class Poller implements LandingPoller {
  readonly #o: LandingPollerOptions;
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(options: LandingPollerOptions) {
    this.#o = options;
  }

  fateOf(sent: SentTransaction): Promise<Fate> {
    return new Promise<Fate>((resolve, reject) => {
      this.#waiting.push({ sent, resolve, reject });
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => {
      void this.#poll().finally(() => {
        this.#scheduled = false;
        if (this.#waiting.length > 0) this.#schedule();
      });
    }, this.#o.pollMs);
  }

  /** Statuses in batch order, up to 256 signatures a call. */
  async #statusesOf(entries: Waiting[]): Promise<(SignatureStatus | null)[]> {
    const statuses: (SignatureStatus | null)[] = [];
    for (let i = 0; i < entries.length; i += STATUS_BATCH) {
      const { value } = await this.#o.connection.getSignatureStatuses(
        entries.slice(i, i + STATUS_BATCH).map(({ sent }) => sent.signature),
        { searchTransactionHistory: true },
      );
      statuses.push(...value);
    }
    return statuses;
  }

  async #poll() {
    const batch = this.#waiting;
    this.#waiting = [];
    try {
      // Most transactions in flight are seen already: one call settles them. Only those the chain
      // does not show are checked for whether they can still land, and then asked about again,
      // in that order: not able to land at the check and not seen after it means never.
      const unseen: Waiting[] = [];
      (await this.#statusesOf(batch)).forEach((status, i) => {
        if (status) settleSeen(batch[i]!, status);
        else unseen.push(batch[i]!);
      });
      if (unseen.length > 0) await this.#settleUnseen(unseen);
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  async #settleUnseen(unseen: Waiting[]) {
    const { connection, log } = this.#o;
    const alive = await this.#canStillLand(unseen);
    const statuses = await this.#statusesOf(unseen);
    await Promise.all(
      unseen.map(async (entry, i) => {
        const status = statuses[i];
        if (status) return settleSeen(entry, status);
        const { sent } = entry;
        if (!alive[i])
          return entry.resolve({
            state: "dead",
            why: sent.nonceAccount ? "its nonce moved on" : "its blockhash expired",
          });
        await connection
          .sendRawTransaction(sent.wire, { preflightCommitment: "confirmed", maxRetries: 5 })
          .catch((error) =>
            log.warn({ err: String(error), signature: sent.signature }, "resend refused; will retry"),
          );
        entry.resolve({ state: "pending" });
      }),
    );
  }

  /** Whether each can still land, one look at each blockhash or nonce they share. */
  #canStillLand(entries: Waiting[]): Promise<boolean[]> {
    const holds = new Map<string, Promise<boolean>>();
    return Promise.all(
      entries.map(({ sent }) => {
        // Parsed only here: most transactions are seen at their first poll and never need it.
        const condition = landingCondition(sent.message);
        const key = conditionKey(condition);
        if (!holds.has(key)) holds.set(key, conditionHolds(this.#o.connection, condition));
        return holds.get(key)!;
      }),
    );
  }
}

function settleSeen(entry: Waiting, status: SignatureStatus) {
  if (status.confirmationStatus !== "finalized") return entry.resolve({ state: "pending" });
  entry.resolve(
    status.err
      ? { state: "dead", why: `failed on chain: ${JSON.stringify(status.err)}` }
      : { state: "final", txid: entry.sent.signature },
  );
}
