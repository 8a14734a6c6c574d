import type { Sql } from "@gateway/db";
import client from "prom-client";

/**
 * Gauges read from PostgreSQL at scrape time: payments by status and mode, and the relays' lag
 * (events and outbox rows not yet on JetStream, and the age of the oldest), which says whether
 * the bus keeps up.
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
    help: "Events and outbox rows the relays have not yet published to JetStream",
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: bigint }[]>`
        select (select count(*) from outbox_pending) + (select count(*) from events_pending) as n`;
      this.set(Number(row?.n ?? 0n));
    },
  });
  new client.Gauge({
    name: "gateway_outbox_lag_seconds",
    help: "Age of the oldest event or outbox row the relays have not yet published",
    registers: [registry],
    async collect() {
      const [row] = await sql<{ age: number | null }[]>`
        select extract(epoch from now() - least(
          (select min(created_at) from outbox_pending), (select min(created_at) from events_pending)))::float8 as age`;
      this.set(row?.age ?? 0);
    },
  });
}
