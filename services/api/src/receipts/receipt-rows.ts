// The `payment_receipts` rows: the customer's address, and each mail's claim and sending, so
// that a mail goes out at least once and, but for a crash after the SMTP server accepted it,
// once only.
import type { Sql } from "@gateway/db";

export type ReceiptKind = "completed" | "refunded";

/** How long a claimed mail may stay unsent before another sender takes it on. */
export const CLAIM_LEASE_SECONDS = 120;

/** The address for a payment's mails; a later one replaces it for the mails not sent yet. */
export async function saveReceiptEmail(sql: Sql, paymentId: string, email: string): Promise<void> {
  await sql`
    insert into payment_receipts (payment_id, email) values (${paymentId}, ${email})
    on conflict (payment_id) do update set email = excluded.email`;
}

/** Takes on one mail: the address when it is due and nobody else holds it, else undefined. */
export async function claimReceipt(
  sql: Sql,
  paymentId: string,
  kind: ReceiptKind,
): Promise<string | undefined> {
  const claimed = sql(`${kind}_claimed_at`);
  const sent = sql(`${kind}_sent_at`);
  const [row] = await sql<{ email: string }[]>`
    update payment_receipts set ${claimed} = now()
    where payment_id = ${paymentId} and ${sent} is null
      and (${claimed} is null or ${claimed} < now() - make_interval(secs => ${CLAIM_LEASE_SECONDS}))
    returning email`;
  return row?.email;
}

export async function markReceiptSent(sql: Sql, paymentId: string, kind: ReceiptKind): Promise<void> {
  await sql`update payment_receipts set ${sql(`${kind}_sent_at`)} = now() where payment_id = ${paymentId}`;
}

/** Gives a claim back after a failed send, so the retry need not wait for the lease. */
export async function releaseReceipt(sql: Sql, paymentId: string, kind: ReceiptKind): Promise<void> {
  await sql`update payment_receipts set ${sql(`${kind}_claimed_at`)} = null where payment_id = ${paymentId}`;
}
