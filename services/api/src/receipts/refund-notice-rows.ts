// The `payment_refund_notices` rows: one per refund the customer hears of on its own, claimed
// and marked sent as the receipts are (receipt-rows.ts), so each notice goes out once.
import type { Sql } from "@gateway/db";
import { CLAIM_LEASE_SECONDS } from "./receipt-rows.js";

/**
 * Takes on the notice of one refund: the customer's address when they left one and nobody else
 * holds or has sent the notice, else undefined.
 */
export async function claimRefundNotice(
  sql: Sql,
  paymentId: string,
  refundId: string,
): Promise<string | undefined> {
  const [row] = await sql<{ email: string }[]>`
    with claimed as (
      insert into payment_refund_notices as n (refund_id, payment_id, claimed_at)
      select ${refundId}, payment_id, now() from payment_receipts where payment_id = ${paymentId}
      on conflict (refund_id) do update set claimed_at = now()
      where n.sent_at is null
        and (n.claimed_at is null or n.claimed_at < now() - make_interval(secs => ${CLAIM_LEASE_SECONDS}))
      returning payment_id
    )
    select r.email from claimed join payment_receipts r using (payment_id)`;
  return row?.email;
}

export async function markRefundNoticeSent(sql: Sql, refundId: string): Promise<void> {
  await sql`update payment_refund_notices set sent_at = now() where refund_id = ${refundId}`;
}

/** Gives a claim back after a failed send, so the retry need not wait for the lease. */
export async function releaseRefundNotice(sql: Sql, refundId: string): Promise<void> {
  await sql`update payment_refund_notices set claimed_at = null where refund_id = ${refundId}`;
}
