import type { Logger } from "@gateway/logging";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import type { CheckpointTransaction } from "./match.js";

export interface WatchedCheckpoint {
  sequence: bigint;
  /** Epoch ms of the checkpoint (its finality time). */
  timestampMs: number;
  transactions: CheckpointTransaction[];
}

/** The checkpoint fields the watcher reads, and so asks for. */
export const CHECKPOINT_READ_MASK = {
  paths: [
    "sequence_number",
    "summary.timestamp",
    "transactions.digest",
    "transactions.transaction.sender",
    "transactions.balance_changes",
  ],
};

export interface CheckpointSource {
  start(): Promise<void>;
  stop(): void;
  /** The highest checkpoint known to exist. */
  readonly height: bigint;
  /** Checkpoint `sequence`, waiting until it exists; from the stream when it brought it, else fetched. */
  get(sequence: bigint): Promise<WatchedCheckpoint>;
}

export type RawCheckpoint = {
  sequenceNumber?: bigint;
  summary?: { timestamp?: { seconds: bigint; nanos: number } };
  transactions: {
    digest?: string;
    transaction?: { sender?: string };
    balanceChanges: { address?: string; coinType?: string; amount?: string }[];
  }[];
};

/** A checkpoint message (narrowed to the read mask) as the watcher works with it. */
export function toWatched(raw: RawCheckpoint): WatchedCheckpoint {
  const ts = raw.summary?.timestamp;
  return {
    sequence: raw.sequenceNumber ?? 0n,
    timestampMs: ts ? Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6) : 0,
    transactions: raw.transactions.map((tx) => ({
      digest: tx.digest ?? "",
      sender: tx.transaction?.sender,
      balanceChanges: tx.balanceChanges.map((c) => ({
        address: c.address ?? "",
        coinType: c.coinType ?? "",
        amount: c.amount ?? "0",
      })),
    })),
  };
}

/**
 * Finalized checkpoints in order. The subscription brings new ones as they are sealed (and
 * tells how high the chain is); anything older than what the stream has buffered is read with
 * GetCheckpoint, so a cursor far behind catches up and a dropped stream leaves no gap.
 */
export function createCheckpointSource(options: {
  client: SuiGrpcClient;
  log: Logger;
  /** Without stream news, how often to ask the chain for its height. */
  pollMs?: number;
}): CheckpointSource {
  const { client, log } = options;
  const pollMs = options.pollMs ?? 1000;
  const buffer = new Map<bigint, WatchedCheckpoint>();
  let height = -1n;
  let running = false;
  let abort: AbortController | undefined;
  let waiters: (() => void)[] = [];

  function learned(sequence: bigint) {
    if (sequence > height) height = sequence;
    const wake = waiters;
    waiters = [];
    for (const w of wake) w();
  }

  async function latest(): Promise<bigint> {
    const { response } = await client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: undefined },
      readMask: { paths: ["sequence_number"] },
    });
    return response.checkpoint?.sequenceNumber ?? 0n;
  }

  async function follow() {
    let failures = 0;
    while (running) {
      abort = new AbortController();
      try {
        const call = client.subscriptionService.subscribeCheckpoints(
          { readMask: CHECKPOINT_READ_MASK },
          { abort: abort.signal },
        );
        for await (const frame of call.responses) {
          failures = 0;
          if (!frame.checkpoint) continue;
          const checkpoint = toWatched(frame.checkpoint as RawCheckpoint);
          buffer.set(checkpoint.sequence, checkpoint);
          // Only the recent past is kept; older checkpoints are fetched when needed.
          if (buffer.size > 512) buffer.delete(buffer.keys().next().value as bigint);
          learned(checkpoint.sequence);
        }
      } catch (err) {
        if (!running) return;
        failures++;
        if (failures === 1 || failures % 20 === 0) log.warn({ err, failures }, "checkpoint stream broke");
      }
      if (running) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** failures, 5_000)));
    }
  }

  return {
    get height() {
      return height;
    },
    async start() {
      running = true;
      learned(await latest());
      void follow();
    },
    stop() {
      running = false;
      abort?.abort();
      for (const w of waiters) w();
      waiters = [];
    },
    async get(sequence) {
      while (sequence > height) {
        if (!running) throw new Error("checkpoint source stopped");
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        if (sequence > height && running) learned(await latest());
      }
      const buffered = buffer.get(sequence);
      if (buffered) {
        buffer.delete(sequence);
        return buffered;
      }
      const { response } = await client.ledgerService.getCheckpoint({
        checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: sequence },
        readMask: CHECKPOINT_READ_MASK,
      });
      if (!response.checkpoint) throw new Error(`checkpoint ${sequence} came back empty`);
      return toWatched(response.checkpoint as RawCheckpoint);
    },
  };
}
