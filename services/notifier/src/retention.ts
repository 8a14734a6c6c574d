import type { Sql } from "@gateway/db";

/**
 * Finished deliveries (with their attempt log and stored body) older than the retention are
 * deleted in small batches, so the log does not grow without end and no batch holds locks for
 * long. Pending deliveries are never touched. Safe to run from every replica at once.
 */
export async function pruneDeliveryLog(
  sql: Sql,
  { olderThanMs, batchSize = 1000 }: { olderThanMs: number; batchSize?: number },
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await sql.begin(async (tx) => {
      const ids = (
        await tx<{ id: string }[]>`
          select id from webhook_deliveries
          where status <> 'pending' and updated_at < now() - ${olderThanMs} * interval '1 millisecond'
          limit ${batchSize} for update skip locked`
      ).map((r) => r.id);
      if (ids.length === 0) return 0;
      await tx`delete from webhook_delivery_attempts where delivery_id = any(${ids}::text[])`;
      await tx`delete from webhook_deliveries where id = any(${ids}::text[])`;
      return ids.length;
    });
    total += deleted as number;
    if ((deleted as number) < batchSize) return total;
  }
}
