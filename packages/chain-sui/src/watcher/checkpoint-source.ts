// Finalized checkpoints in order, from the full node's checkpoint subscription. No Solana
// counterpart: Solana's watcher asks for the transactions it was hinted, not a whole chain's.
import type { Logger } from "@gateway/logging";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import type { CheckpointTransaction } from "./deposits-in-transaction.js";

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
  return new Source(options.client, options.log, options.pollMs ?? 1000);
}

/** Only the recent past is kept; older checkpoints are fetched when needed. */
const BUFFERED = 512;

class Source implements CheckpointSource {
  readonly #client: SuiGrpcClient;
  readonly #log: Logger;
  readonly #pollMs: number;
  readonly #buffer = new Map<bigint, WatchedCheckpoint>();
  #height = -1n;
  #running = false;
  #abort: AbortController | undefined;
  #waiters: (() => void)[] = [];

  constructor(client: SuiGrpcClient, log: Logger, pollMs: number) {
    this.#client = client;
    this.#log = log;
    this.#pollMs = pollMs;
  }

  get height(): bigint {
    return this.#height;
  }

  async start(): Promise<void> {
    this.#running = true;
    this.#learned(await this.#latest());
    void this.#follow();
  }

  stop(): void {
    this.#running = false;
    this.#abort?.abort();
    for (const w of this.#waiters) w();
    this.#waiters = [];
  }

  async get(sequence: bigint): Promise<WatchedCheckpoint> {
    while (sequence > this.#height) {
      if (!this.#running) throw new Error("checkpoint source stopped");
      await this.#news();
      if (sequence > this.#height && this.#running) this.#learned(await this.#latest());
    }
    const buffered = this.#buffer.get(sequence);
    if (buffered) {
      this.#buffer.delete(sequence);
      return buffered;
    }
    const { response } = await this.#client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: "sequenceNumber", sequenceNumber: sequence },
      readMask: CHECKPOINT_READ_MASK,
    });
    if (!response.checkpoint) throw new Error(`checkpoint ${sequence} came back empty`);
    return toWatched(response.checkpoint as RawCheckpoint);
  }

  /** Resolves when the stream brings a checkpoint, the source stops, or pollMs passes. */
  #news(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#pollMs);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #learned(sequence: bigint) {
    if (sequence > this.#height) this.#height = sequence;
    const wake = this.#waiters;
    this.#waiters = [];
    for (const w of wake) w();
  }

  async #latest(): Promise<bigint> {
    const { response } = await this.#client.ledgerService.getCheckpoint({
      checkpointId: { oneofKind: undefined },
      readMask: { paths: ["sequence_number"] },
    });
    return response.checkpoint?.sequenceNumber ?? 0n;
  }

  async #follow() {
    let failures = 0;
    while (this.#running) {
      this.#abort = new AbortController();
      try {
        const call = this.#client.subscriptionService.subscribeCheckpoints(
          { readMask: CHECKPOINT_READ_MASK },
          { abort: this.#abort.signal },
        );
        for await (const frame of call.responses) {
          failures = 0;
          if (frame.checkpoint) this.#buffered(toWatched(frame.checkpoint as RawCheckpoint));
        }
      } catch (err) {
        if (!this.#running) return;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          this.#log.warn({ err, failures }, "checkpoint stream broke");
      }
      if (this.#running) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** failures, 5_000)));
    }
  }

  #buffered(checkpoint: WatchedCheckpoint) {
    this.#buffer.set(checkpoint.sequence, checkpoint);
    if (this.#buffer.size > BUFFERED) this.#buffer.delete(this.#buffer.keys().next().value as bigint);
    this.#learned(checkpoint.sequence);
  }
}
