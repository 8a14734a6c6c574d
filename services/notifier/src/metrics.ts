import type { Sql } from "@gateway/db";
import { prom, type Registry } from "@gateway/metrics";
import type { Notifier } from "./notifier.js";

/**
 * Webhook delivery success and latency. Attempts and successes come from this replica's worker;
 * latency percentiles over the last five minutes come from the attempt log all replicas share.
 */
export function notifierMetrics(registry: Registry, notifier: Notifier, sql: Sql): void {
  let seen = { attempted: 0, succeeded: 0 };
  const attempts = new prom.Counter({
    name: "gateway_webhook_attempts_total",
    help: "Webhook delivery attempts by outcome (this replica)",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      const now = notifier.stats();
      this.inc({ outcome: "succeeded" }, now.succeeded - seen.succeeded);
      this.inc({ outcome: "failed" }, now.attempted - now.succeeded - (seen.attempted - seen.succeeded));
      seen = { attempted: now.attempted, succeeded: now.succeeded };
    },
  });
  void attempts;
  new prom.Gauge({
    name: "gateway_webhook_latency_seconds",
    help: "Webhook attempt latency over the last 5 minutes, all replicas",
    labelNames: ["quantile"],
    registers: [registry],
    async collect() {
      const [row] = await sql<{ p50: number | null; p99: number | null }[]>`
        select percentile_cont(0.5) within group (order by latency_ms) as p50,
               percentile_cont(0.99) within group (order by latency_ms) as p99
        from webhook_delivery_attempts where started_at > now() - interval '5 minutes'`;
      this.set({ quantile: "0.5" }, (row?.p50 ?? 0) / 1000);
      this.set({ quantile: "0.99" }, (row?.p99 ?? 0) / 1000);
    },
  });
  new prom.Gauge({
    name: "gateway_webhook_deliveries_pending",
    help: "Deliveries waiting for their next attempt, all replicas",
    registers: [registry],
    async collect() {
      const [row] = await sql<
        { n: bigint }[]
      >`select count(*) as n from webhook_deliveries where status = 'pending'`;
      this.set(Number(row?.n ?? 0n));
    },
  });
}
