import type { Sql } from "@gateway/db";
import client from "prom-client";

/**
 * Gauges read from PostgreSQL at scrape time: payments by status and mode, and the outbox lag
 * (rows not yet on JetStream, and the age of the oldest), which says whether the bus keeps up.
 */
export function databaseMetrics(registry: client.Registry, sql: Sql): void {
  new client.Gauge({
    name: "gateway_payments",
    help: "Payments by status and mode",
    labelNames: ["status", "mode"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ status: string; mode: string; n: bigint }[]>`
        select status, mode, count(*) as n from payments group by status, mode`;
      for (const row of rows) this.set({ status: row.status, mode: row.mode }, Number(row.n));
    },
  });
  new client.Gauge({
    name: "gateway_outbox_pending",
    help: "Outbox rows not yet published to JetStream",
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: bigint }[]>`select count(*) as n from outbox where published_at is null`;
      this.set(Number(row?.n ?? 0n));
    },
  });
  new client.Gauge({
    name: "gateway_outbox_lag_seconds",
    help: "Age of the oldest unpublished outbox row",
    registers: [registry],
    async collect() {
      const [row] = await sql<{ age: number | null }[]>`
        select extract(epoch from now() - min(created_at))::float8 as age from outbox where published_at is null`;
      this.set(row?.age ?? 0);
    },
  });
}
