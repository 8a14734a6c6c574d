import client from "prom-client";

export type { Registry } from "prom-client";

/**
 * One registry per process, labelled with the service, holding Node's default metrics (event
 * loop lag, heap, GC) plus whatever the service registers.
 */
export function createMetricsRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
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

/** Both watchers report how many open addresses they watch under this one name. */
export const OPEN_ADDRESSES_GAUGE = {
  name: "gateway_watcher_open_addresses",
  help: "Open deposit addresses this replica watches",
};

export { client as prom };
