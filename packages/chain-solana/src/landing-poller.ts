// What became of the transactions settlement is waiting for, asked for all of them at once: one
// getSignatureStatuses per poll for every intent in flight (up to 256 signatures a call), and one
// look at each blockhash or nonce they share, instead of two calls per intent per poll. At 40 live
// payments a second some 40 sweeps wait on finality together; each asked on its own, those calls
// were most of settlement's RPC traffic and of the local network's work.
import type { Logger } from "@gateway/logging";
import type { Connection, SignatureStatus } from "@solana/web3.js";
import {
  conditionHolds,
  conditionKey,
  type LandingCondition,
  landingCondition,
} from "./transaction-outcome.js";

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
  condition: LandingCondition;
  resolve(fate: Fate): void;
  reject(error: unknown): void;
}

export function createLandingPoller(options: {
  connection: Connection;
  log: Logger;
  pollMs: number;
}): LandingPoller {
  const { connection, log, pollMs } = options;
  let waiting: Waiting[] = [];
  let scheduled = false;
  // A message is parsed once however many polls it waits through.
  const conditions = new WeakMap<Uint8Array, LandingCondition>();

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      void poll().finally(() => {
        scheduled = false;
        if (waiting.length > 0) schedule();
      });
    }, pollMs);
  }

  async function poll() {
    const batch = waiting;
    waiting = [];
    try {
      const holds = new Map<string, Promise<boolean>>();
      for (const { condition } of batch) {
        const key = conditionKey(condition);
        if (!holds.has(key)) holds.set(key, conditionHolds(connection, condition));
      }
      const alive = await Promise.all(batch.map(({ condition }) => holds.get(conditionKey(condition))!));
      const statuses: (SignatureStatus | null)[] = [];
      for (let i = 0; i < batch.length; i += STATUS_BATCH) {
        const { value } = await connection.getSignatureStatuses(
          batch.slice(i, i + STATUS_BATCH).map(({ sent }) => sent.signature),
          { searchTransactionHistory: true },
        );
        statuses.push(...value);
      }
      await Promise.all(
        batch.map(async (entry, i) => {
          const status = statuses[i] ?? null;
          const { sent } = entry;
          if (status?.confirmationStatus === "finalized") {
            entry.resolve(
              status.err
                ? { state: "dead", why: `failed on chain: ${JSON.stringify(status.err)}` }
                : { state: "final", txid: sent.signature },
            );
          } else if (status) {
            entry.resolve({ state: "pending" });
          } else if (!alive[i]) {
            entry.resolve({
              state: "dead",
              why: sent.nonceAccount ? "its nonce moved on" : "its blockhash expired",
            });
          } else {
            await connection
              .sendRawTransaction(sent.wire, { preflightCommitment: "confirmed", maxRetries: 5 })
              .catch((error) =>
                log.warn({ err: String(error), signature: sent.signature }, "resend refused; will retry"),
              );
            entry.resolve({ state: "pending" });
          }
        }),
      );
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }

  return {
    fateOf(sent) {
      let condition = conditions.get(sent.message);
      if (!condition) {
        condition = landingCondition(sent.message);
        conditions.set(sent.message, condition);
      }
      const known = condition;
      return new Promise<Fate>((resolve, reject) => {
        waiting.push({ sent, condition: known, resolve, reject });
        schedule();
      });
    },
  };
}
