// Waits for transactions to reach a checkpoint (final on Sui), for every sweep, refund and payout
// of the process at once: one BatchGetTransactions call a tick for all the digests still waiting,
// instead of a GetTransaction call per transaction every 100 ms (two to four a sweep with
// checkpoints 250 ms apart), so what settlement asks the full node no longer grows with each
// transaction's wait.
import type { Logger } from "@gateway/logging";
import type { SuiGrpcClient } from "@mysten/sui/grpc";

export interface FinalTransaction {
  digest: string;
  checkpoint: string;
  status: { success: boolean; error?: string };
}

export interface FinalityWatchOptions {
  client: SuiGrpcClient;
  log: Logger;
  /** Between two batch reads while anything waits (the chain's checkpoints come every 250 ms or so). */
  intervalMs?: number;
  /** Digests a call; larger waits are read in several calls side by side. */
  batchSize?: number;
  /** While reads keep failing, one warning per this long (with the failures counted since). */
  warnEveryMs?: number;
}

interface Waiter {
  deadline: number;
  resolve: (tx: FinalTransaction) => void;
  reject: (err: Error) => void;
}

const READ_MASK = { paths: ["digest", "checkpoint", "effects.status"] };

export function createFinalityWatch(options: FinalityWatchOptions) {
  const { client, log } = options;
  const intervalMs = options.intervalMs ?? 100;
  const batchSize = options.batchSize ?? 50;
  const warnEveryMs = options.warnEveryMs ?? 10_000;
  const waiting = new Map<string, Waiter[]>();
  let timer: NodeJS.Timeout | undefined;
  // A full node out of reach fails every tick (ten a second): the operator needs to hear it, not
  // ten lines a second of it.
  let lastWarnedAt = Number.NEGATIVE_INFINITY;
  let failedSinceWarning = 0;

  function schedule() {
    if (timer || waiting.size === 0) return;
    timer = setTimeout(() => void tick(), intervalMs);
  }

  function settle(digest: string, outcome: { tx: FinalTransaction } | { err: Error }) {
    const waiters = waiting.get(digest) ?? [];
    waiting.delete(digest);
    for (const waiter of waiters) {
      if ("tx" in outcome) waiter.resolve(outcome.tx);
      else waiter.reject(outcome.err);
    }
  }

  async function read(digests: string[]) {
    const { response } = await client.ledgerService.batchGetTransactions({ digests, readMask: READ_MASK });
    response.transactions.forEach((entry, i) => {
      // Not found yet is normal: the node may answer for an executed transaction a moment later.
      if (entry.result.oneofKind !== "transaction") return;
      const tx = entry.result.transaction;
      if (tx.checkpoint === undefined) return;
      const status = tx.effects?.status;
      settle(digests[i]!, {
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

  async function tick() {
    const digests = [...waiting.keys()];
    const reads: Promise<void>[] = [];
    for (let i = 0; i < digests.length; i += batchSize) reads.push(read(digests.slice(i, i + batchSize)));
    const results = await Promise.allSettled(reads);
    const now = Date.now();
    for (const result of results) {
      if (result.status !== "rejected") continue;
      failedSinceWarning++;
      if (now - lastWarnedAt < warnEveryMs) continue;
      log.warn(
        { err: String(result.reason), failedReads: failedSinceWarning },
        "sui finality reads failing; trying again every tick",
      );
      lastWarnedAt = now;
      failedSinceWarning = 0;
    }
    for (const [digest, waiters] of waiting) {
      const late = waiters.filter((w) => w.deadline <= now);
      if (late.length === 0) continue;
      const still = waiters.filter((w) => w.deadline > now);
      if (still.length) waiting.set(digest, still);
      else waiting.delete(digest);
      for (const waiter of late) waiter.reject(new Error(`transaction ${digest} not in a checkpoint yet`));
    }
    timer = undefined;
    schedule();
  }

  return {
    /** Resolves once `digest` is in a checkpoint; rejects after `timeoutMs` without one. */
    wait(digest: string, timeoutMs: number): Promise<FinalTransaction> {
      return new Promise((resolve, reject) => {
        const waiters = waiting.get(digest) ?? [];
        waiters.push({ deadline: Date.now() + timeoutMs, resolve, reject });
        waiting.set(digest, waiters);
        schedule();
      });
    },
  };
}

export type FinalityWatch = ReturnType<typeof createFinalityWatch>;
