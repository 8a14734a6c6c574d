export { databaseMetrics } from "./database-metrics.js";
export { httpMetrics } from "./http-metrics.js";
export { createMetricsRegistry, prom, type Registry } from "./registry.js";
