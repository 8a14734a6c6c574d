// Waits for transactions to reach a checkpoint (final on Sui), for every intent of the process at
// once: one BatchGetTransactions call a tick for all the digests still waiting. chain-solana's
// landing-poller.ts without a "dead" fate: an executed Sui transaction cannot expire unlanded.
import type { Logger } from "@gateway/logging";
import type { SuiGrpcClient } from "@mysten/sui/grpc";

export interface FinalTransaction {
  digest: string;
  checkpoint: string;
  status: { success: boolean; error?: string };
}

export interface LandingPollerOptions {
  client: SuiGrpcClient;
  log: Logger;
  /** Between two batch reads while anything waits (the chain's checkpoints come every 250 ms or so). */
  intervalMs?: number;
  /** Digests a call; larger waits are read in several calls side by side. */
  batchSize?: number;
  /** While reads keep failing, one warning per this long (with the failures counted since). */
  warnEveryMs?: number;
}

export interface LandingPoller {
  /** Resolves once `digest` is in a checkpoint; rejects after `timeoutMs` without one. */
  wait(digest: string, timeoutMs: number): Promise<FinalTransaction>;
}

interface Waiter {
  deadline: number;
  resolve: (tx: FinalTransaction) => void;
  reject: (err: Error) => void;
}

const READ_MASK = { paths: ["digest", "checkpoint", "effects.status"] };

export function createLandingPoller(options: LandingPollerOptions): LandingPoller {
  return new Poller(options);
}

class Poller implements LandingPoller {
  readonly #client: SuiGrpcClient;
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #batchSize: number;
  readonly #warnEveryMs: number;
  readonly #waiting = new Map<string, Waiter[]>();
  #timer: NodeJS.Timeout | undefined;
  // A full node out of reach fails every tick (ten a second): the operator needs to hear it, not
  // ten lines a second of it.
  #lastWarnedAt = Number.NEGATIVE_INFINITY;
  #failedSinceWarning = 0;

  constructor(options: LandingPollerOptions) {
    this.#client = options.client;
    this.#log = options.log;
    this.#intervalMs = options.intervalMs ?? 100;
    this.#batchSize = options.batchSize ?? 50;
    this.#warnEveryMs = options.warnEveryMs ?? 10_000;
  }

  wait(digest: string, timeoutMs: number): Promise<FinalTransaction> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(digest) ?? [];
      waiters.push({ deadline: Date.now() + timeoutMs, resolve, reject });
      this.#waiting.set(digest, waiters);
      this.#schedule();
    });
  }

  #schedule() {
    if (this.#timer || this.#waiting.size === 0) return;
    this.#timer = setTimeout(() => void this.#tick(), this.#intervalMs);
  }

  #settle(digest: string, outcome: { tx: FinalTransaction } | { err: Error }) {
    const waiters = this.#waiting.get(digest) ?? [];
    this.#waiting.delete(digest);
    for (const waiter of waiters) {
      if ("tx" in outcome) waiter.resolve(outcome.tx);
      else waiter.reject(outcome.err);
    }
  }

  async #read(digests: string[]) {
    const { response } = await this.#client.ledgerService.batchGetTransactions({
      digests,
      readMask: READ_MASK,
    });
    response.transactions.forEach((entry, i) => {
      // Not found yet is normal: the node may answer for an executed transaction a moment later.
      if (entry.result.oneofKind !== "transaction") return;
      const tx = entry.result.transaction;
      if (tx.checkpoint === undefined) return;
      const status = tx.effects?.status;
      this.#settle(digests[i]!, {
        tx: {
          digest: digests[i]!,
          checkpoint: tx.checkpoint.toString(),
          status: status?.success
            ? { success: true }
            : { success: false, error: status?.error?.description ?? "the transaction failed" },
        },
      });
    });
  }

  async #tick() {
    const digests = [...this.#waiting.keys()];
    const reads: Promise<void>[] = [];
    for (let i = 0; i < digests.length; i += this.#batchSize)
      reads.push(this.#read(digests.slice(i, i + this.#batchSize)));
    const results = await Promise.allSettled(reads);
    const now = Date.now();
    for (const result of results) if (result.status === "rejected") this.#failed(result.reason, now);
    this.#expire(now);
    this.#timer = undefined;
    this.#schedule();
  }

  #failed(reason: unknown, now: number) {
    this.#failedSinceWarning++;
    if (now - this.#lastWarnedAt < this.#warnEveryMs) return;
    this.#log.warn(
      { err: String(reason), failedReads: this.#failedSinceWarning },
      "sui finality reads failing; trying again every tick",
    );
    this.#lastWarnedAt = now;
    this.#failedSinceWarning = 0;
  }

  /** Waits past their deadline are rejected; others of the same digest keep waiting. */
  #expire(now: number) {
    for (const [digest, waiters] of this.#waiting) {
      const late = waiters.filter((w) => w.deadline <= now);
      if (late.length === 0) continue;
      const still = waiters.filter((w) => w.deadline > now);
      if (still.length) this.#waiting.set(digest, still);
      else this.#waiting.delete(digest);
      for (const waiter of late) waiter.reject(new Error(`transaction ${digest} not in a checkpoint yet`));
    }
  }
}
