export { databaseMetrics } from "./database-metrics.js";
export { type FullCollectionReading, watchFullCollections } from "./full-collections.js";
export { httpMetrics } from "./http-metrics.js";
export {
  type ConsumerBacklogReading,
  chainGauge,
  consumerBacklogMetrics,
  counterIn,
  createMetricsRegistry,
  gaugeIn,
  OPEN_ADDRESSES_GAUGE,
  prom,
  type Registry,
} from "./registry.js";
