// Queues that must stay bounded: the outbox not yet published, webhook deliveries not yet
// done, and every JetStream durable consumer's backlog (pending + delivered but not acked).
import type { Sql } from "@gateway/db";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";

export interface QueueGauges {
  outboxBacklog: number;
  deliveriesPending: number;
  /** Sum over every durable consumer of num_pending + num_ack_pending. */
  consumerLag: number;
  byConsumer: Record<string, number>;
  /** Payments not yet in a final state (all merchants). */
  openPayments: number;
}

export interface GaugeReader {
  read(): Promise<QueueGauges>;
  close(): Promise<void>;
}

export async function createGaugeReader(options: { sql: Sql; natsUrl: string }): Promise<GaugeReader> {
  const { sql } = options;
  const nc: NatsConnection = await connect({ servers: options.natsUrl, name: "soak-gauges" });
  const jsm = await jetstreamManager(nc);
  return {
    async read() {
      const [[outbox], [deliveries], [open]] = await Promise.all([
        sql<{ n: number }[]>`
          select ((select count(*) from outbox_pending) + (select count(*) from events_pending))::int as n`,
        sql<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where status = 'pending'`,
        sql<
          { n: number }[]
        >`select count(*)::int as n from payments where status in ('pending', 'confirming', 'confirmed', 'underpaid')`,
      ]);
      const byConsumer: Record<string, number> = {};
      for await (const stream of jsm.streams.list()) {
        for await (const consumer of jsm.consumers.list(stream.config.name)) {
          byConsumer[`${stream.config.name}/${consumer.name}`] =
            consumer.num_pending + consumer.num_ack_pending;
        }
      }
      return {
        outboxBacklog: outbox!.n,
        deliveriesPending: deliveries!.n,
        consumerLag: Object.values(byConsumer).reduce((a, b) => a + b, 0),
        byConsumer,
        openPayments: open!.n,
      };
    },
    close: () => nc.close(),
  };
}
