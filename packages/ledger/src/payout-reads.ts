import type { Sql } from "@gateway/db";
import type { Mode } from "@gateway/domain";
import type { PayoutRow } from "./payouts.js";

/** The newest payouts that failed (their amount went back to the balance), for the dashboard's home. */
export async function recentFailedPayouts(
  sql: Sql,
  owner: { merchantId: string; mode: Mode },
  limit: number,
): Promise<PayoutRow[]> {
  return sql<PayoutRow[]>`
    select * from payouts
    where merchant_id = ${owner.merchantId} and mode = ${owner.mode} and status = 'failed'
    order by created_at desc, id desc limit ${limit}`;
}
