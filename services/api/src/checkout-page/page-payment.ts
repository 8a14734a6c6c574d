import type { Sql } from "@gateway/db";
import { findPayment, type PaymentRow } from "@gateway/payments";

/** The payment a page shows and its merchant's name; nothing when there is no such payment. */
export async function loadPagePayment(
  sql: Sql,
  id: string,
): Promise<{ row: PaymentRow; merchantName: string } | undefined> {
  const row = await findPayment(sql, { id });
  if (!row) return undefined;
  const [merchant] = await sql<{ business_name: string }[]>`
    select business_name from merchants where id = ${row.merchant_id}`;
  return { row, merchantName: merchant?.business_name ?? "" };
}
