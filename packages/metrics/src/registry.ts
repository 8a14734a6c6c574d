import client from "prom-client";
import { fullCollectionMetrics } from "./full-collections.js";

export type { Registry } from "prom-client";

/**
 * One registry per process, labelled with the service, holding Node's default metrics (event
 * loop lag, heap, GC), the heap after full collections, plus whatever the service registers.
 */
export function createMetricsRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
  fullCollectionMetrics(registry);
  return registry;
}

interface MetricDeclaration<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

/** A gauge in `registry`; none when the caller keeps no metrics (a test without a registry). */
export function gaugeIn<L extends string>(
  registry: client.Registry | undefined,
  metric: MetricDeclaration<L>,
): client.Gauge<L> | undefined {
  return registry ? new client.Gauge({ ...metric, registers: [registry] }) : undefined;
}

/** A counter in `registry`; none when the caller keeps no metrics. */
export function counterIn<L extends string>(
  registry: client.Registry | undefined,
  metric: MetricDeclaration<L>,
): client.Counter<L> | undefined {
  return registry ? new client.Counter({ ...metric, registers: [registry] }) : undefined;
}

/** A gauge of one chain's value (label `chain`), read each time the metrics are scraped. */
export function chainGauge(
  registry: client.Registry,
  chain: string,
  metric: { name: string; help: string },
  read: () => number | Promise<number>,
): void {
  new client.Gauge({
    ...metric,
    labelNames: ["chain"],
    registers: [registry],
    async collect() {
      this.set({ chain }, await read());
    },
  });
}

/** A durable consumer's backlog (`consumerBacklogs` in @gateway/bus gives these). */
export interface ConsumerBacklogReading {
  stream: string;
  durable: string;
  pending: number;
  ackPending: number;
  redelivered: number;
}

/**
 * Each durable consumer's backlog, read each time the metrics are scraped: messages not yet
 * delivered, delivered and unacknowledged, and redelivered. Read from JetStream, so every replica
 * reports the same numbers for a durable they share.
 */
export function consumerBacklogMetrics(
  registry: client.Registry,
  read: () => Promise<ConsumerBacklogReading[]>,
): void {
  // One read serves the three gauges of a scrape: the registry collects them all at once, so
  // the first starts the read and the other two join it.
  let reading: Promise<ConsumerBacklogReading[]> | undefined;
  const shared = () => {
    reading ??= read().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  const gauge = (name: string, help: string, value: (b: ConsumerBacklogReading) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ["stream", "durable"],
      registers: [registry],
      async collect() {
        const readings = await shared();
        this.reset();
        for (const b of readings) this.set({ stream: b.stream, durable: b.durable }, value(b));
      },
    });
  gauge(
    "gateway_consumer_pending_messages",
    "Messages of a durable consumer's subjects not yet delivered to it",
    (b) => b.pending,
  );
  gauge(
    "gateway_consumer_ack_pending_messages",
    "Messages delivered to a durable consumer and not yet acknowledged",
    (b) => b.ackPending,
  );
  gauge(
    "gateway_consumer_redelivered_messages",
    "Messages delivered to a durable consumer more than once and not yet acknowledged",
    (b) => b.redelivered,
  );
}

/** Both watchers report how many open addresses they watch under this one name. */
export const OPEN_ADDRESSES_GAUGE = {
  name: "gateway_watcher_open_addresses",
  help: "Open deposit addresses this replica watches",
};

export { client as prom };
