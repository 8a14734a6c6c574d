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

export { client as prom };
