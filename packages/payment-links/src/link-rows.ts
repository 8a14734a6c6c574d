// The `payment_links` rows and the payments made through them (`payment_link_payments`): the
// only SQL on those tables. Each message is decided (link.ts) under the link's row lock and its
// effects written in the same transaction.
import { newId, type Sql, type TransactionSql } from "@gateway/db";
import type { Currency, Mode } from "@gateway/domain";
import { type InsertPayment, insertPayment, type PaymentRow } from "@gateway/payments";
import { decide, type PaymentLinkEffect, type PaymentLinkState } from "./link.js";

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  currency: Currency;
  amount: bigint;
  description: string | null;
  redirect_url: string | null;
  active: boolean;
  created_at: Date;
  deactivated_at: Date | null;
  /** Payments opened through the link, and how many of them completed. */
  payments_count: number;
  completed_count: number;
}

export interface NewPaymentLink {
  merchantId: string;
  mode: Mode;
  currency: Currency;
  amount: bigint;
  description: string | null;
  redirectUrl: string | null;
}

export const stateOfLink = (
  row: Omit<PaymentLinkRow, "payments_count" | "completed_count">,
): PaymentLinkState => ({
  id: row.id,
  merchantId: row.merchant_id,
  mode: row.mode,
  currency: row.currency,
  amount: BigInt(row.amount),
  description: row.description,
  redirectUrl: row.redirect_url,
  active: row.active,
});

/** The link's columns and its counts, for the rows `links` names. */
const withCounts = (sql: Sql | TransactionSql, where: ReturnType<Sql>) => sql<PaymentLinkRow[]>`
  select l.*, count(lp.payment_id)::int as payments_count,
    (count(*) filter (where p.status = 'completed'))::int as completed_count
  from payment_links l
  left join payment_link_payments lp on lp.link_id = l.id
  left join payments p on p.id = lp.payment_id
  where ${where}
  group by l.id`;

export async function insertPaymentLink(sql: Sql, link: NewPaymentLink): Promise<PaymentLinkRow> {
  const [row] = await sql<Omit<PaymentLinkRow, "payments_count" | "completed_count">[]>`
    insert into payment_links (id, merchant_id, mode, currency, amount, description, redirect_url)
    values (${newId("plink")}, ${link.merchantId}, ${link.mode}, ${link.currency}, ${link.amount},
            ${link.description}, ${link.redirectUrl})
    returning *`;
  return { ...row!, payments_count: 0, completed_count: 0 };
}

/** A merchant's links of one mode, newest first, a page at a time. */
export async function listPaymentLinks(
  sql: Sql,
  query: { merchantId: string; mode: Mode; limit: number; startingAfter?: string | undefined },
): Promise<{ rows: PaymentLinkRow[]; hasMore: boolean }> {
  const after = query.startingAfter
    ? sql`and (l.created_at, l.id) < (select created_at, id from payment_links where id = ${query.startingAfter})`
    : sql``;
  const rows = await sql<PaymentLinkRow[]>`
    ${withCounts(sql, sql`l.merchant_id = ${query.merchantId} and l.mode = ${query.mode} ${after}`)}
    order by l.created_at desc, l.id desc limit ${query.limit + 1}`;
  return { rows: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

/** One link of a merchant (of one mode when given); another merchant's does not exist. */
export async function findPaymentLink(
  sql: Sql | TransactionSql,
  query: { id: string; merchantId?: string; mode?: Mode | undefined },
): Promise<PaymentLinkRow | undefined> {
  const [row] = await withCounts(
    sql,
    sql`l.id = ${query.id}
      ${query.merchantId === undefined ? sql`` : sql`and l.merchant_id = ${query.merchantId}`}
      ${query.mode === undefined ? sql`` : sql`and l.mode = ${query.mode}`}`,
  );
  return row;
}

export async function deactivatePaymentLink(
  sql: Sql,
  query: { id: string; merchantId: string; mode?: Mode | undefined },
): Promise<PaymentLinkRow | undefined> {
  return sql.begin(async (tx) => {
    const [row] = await tx<PaymentLinkRow[]>`
      select * from payment_links where id = ${query.id} and merchant_id = ${query.merchantId}
      ${query.mode === undefined ? tx`` : tx`and mode = ${query.mode}`} for update`;
    if (!row) return undefined;
    const decision = decide(stateOfLink(row), { type: "deactivate" });
    await tx`update payment_links set active = ${decision.state.active},
      deactivated_at = coalesce(deactivated_at, now()) where id = ${row.id}`;
    return findPaymentLink(tx, { id: row.id });
  });
}

export type OpenedLink =
  | { outcome: "opened"; link: PaymentLinkState; payment: PaymentRow }
  | { outcome: "inactive"; link: PaymentLinkState }
  | { outcome: "missing" };

/**
 * A customer opens the link: a fresh payment, made by `paymentFor` from the decision's effect and
 * recorded as the link's, in one transaction under a shared lock of the link, so a deactivation
 * (which takes the row exclusively) lands wholly before or after it.
 */
export async function openPaymentLink(
  sql: Sql,
  id: string,
  paymentFor: (effect: PaymentLinkEffect, link: PaymentLinkState) => InsertPayment,
): Promise<OpenedLink> {
  return sql.begin(async (tx): Promise<OpenedLink> => {
    const [row] = await tx<PaymentLinkRow[]>`select * from payment_links where id = ${id} for share`;
    if (!row) return { outcome: "missing" };
    const link = stateOfLink(row);
    const decision = decide(link, { type: "open", paymentId: crypto.randomUUID() });
    const [effect] = decision.effects;
    if (decision.rejected || !effect) return { outcome: "inactive", link };
    const payment = await insertPayment(tx, paymentFor(effect, link));
    await tx`insert into payment_link_payments (payment_id, link_id) values (${payment.id}, ${link.id})`;
    return { outcome: "opened", link, payment };
  });
}
