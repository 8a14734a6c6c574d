import type { JetStreamManager } from "@nats-io/jetstream";

/** One durable consumer's backlog, as JetStream counts it. */
export interface ConsumerBacklog {
  stream: string;
  durable: string;
  /** Messages of its subjects not yet delivered to it. */
  pending: number;
  /** Delivered and not yet acknowledged: in handlers, or waiting for a slot. */
  ackPending: number;
  /** Delivered more than once and not yet acknowledged. */
  redelivered: number;
}

/**
 * Every durable consumer of `streams` with its backlog: one JetStream API request per stream (a
 * page holds 256 consumers). A consumer that fell behind shows here before its work is late:
 * a stalled chain's consumer holds `ackPending` at its limit and a growing `pending`.
 */
export async function consumerBacklogs(jsm: JetStreamManager, streams: string[]): Promise<ConsumerBacklog[]> {
  const out: ConsumerBacklog[] = [];
  for (const stream of streams) {
    for await (const info of jsm.consumers.list(stream)) {
      out.push({
        stream,
        durable: info.name,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        redelivered: info.num_redelivered,
      });
    }
  }
  return out;
}
