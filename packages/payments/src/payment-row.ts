import type { Sql, TransactionSql } from "@gateway/db";
import {
  deserializePaymentState,
  type Mode,
  type PaymentState,
  serializePaymentState,
} from "@gateway/domain";

/** A row of the `payments` table; `state` is the actor's whole state. */
export interface PaymentRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  amount: bigint;
  currency: string;
  fee: bigint;
  description: string | null;
  redirect_url: string | null;
  status: string;
  chain: string | null;
  coin: string | null;
  state: unknown;
  version: number;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

/**
 * The state a row was inserted with, by the serialized object that went into the row: a row this
 * process just inserted carries that object, and decoding it would only give back what was
 * encoded. Rows read from PostgreSQL carry objects
 * of their own and are decoded.
 */
const insertedStates = new WeakMap<object, PaymentState>();

export function stateOf(row: Pick<PaymentRow, "state">): PaymentState {
  const inserted =
    typeof row.state === "object" && row.state !== null ? insertedStates.get(row.state) : undefined;
  return inserted ?? deserializePaymentState(row.state);
}

/** What a state sets on its row besides version and `updated_at`: the one list every state writer uses. */
const STATE_COLUMNS = {
  state: (state: PaymentState): unknown => serializePaymentState(state),
  status: (state: PaymentState): string => state.status,
  chain: (state: PaymentState): string | null => state.wallet?.chain ?? null,
  coin: (state: PaymentState): string | null => state.wallet?.coin ?? null,
  // While the current wallet's quote runs; the expiry sweeper's index reads it.
  quote_expires_at: (state: PaymentState): Date | null => {
    const quote = state.wallet?.quote;
    return quote && !quote.ended ? new Date(quote.expiresAt) : null;
  },
};
type StateColumns = { [C in keyof typeof STATE_COLUMNS]: ReturnType<(typeof STATE_COLUMNS)[C]> };
export const STATE_COLUMN_NAMES = Object.keys(STATE_COLUMNS) as (keyof StateColumns)[];

export function stateColumns(state: PaymentState): StateColumns {
  const columns = Object.fromEntries(STATE_COLUMN_NAMES.map((c) => [c, STATE_COLUMNS[c](state)]));
  const serialized = columns.state as object;
  insertedStates.set(serialized, state);
  return columns as StateColumns;
}

/** For an `update payments set …`: what a new state sets on its row, and the next version. */
export function stateAssignments(t: TransactionSql | Sql, state: PaymentState) {
  const columns: Record<string, unknown> = stateColumns(state);
  columns.state = t.json(columns.state as never);
  const assigned = STATE_COLUMN_NAMES.map((c) => t`${t(c)} = ${columns[c] as never}`);
  return t`${assigned.reduce((list, a) => t`${list}, ${a}`)}, version = version + 1, updated_at = now()`;
}

/**
 * The row as `update payments set ${stateAssignments(state)}` leaves it in a transaction whose
 * `now()` is `now`: what the actor decides the next message on, before anything is written.
 */
export function nextRow(row: PaymentRow, state: PaymentState, now: Date): PaymentRow {
  return { ...row, ...stateColumns(state), version: row.version + 1, updated_at: now };
}

export interface InsertPayment {
  state: PaymentState;
  merchantId: string;
  description: string | null;
  redirectUrl: string | null;
}

export async function insertPayment(tx: TransactionSql | Sql, input: InsertPayment): Promise<PaymentRow> {
  const [row] = await insertPayments(tx, [input]);
  return row!;
}

/** Several payments in one statement (one commit); the rows come back in the inputs' order. */
export async function insertPayments(
  tx: TransactionSql | Sql,
  inputs: InsertPayment[],
): Promise<PaymentRow[]> {
  const serialized = inputs.map(({ state }) => serializePaymentState(state));
  for (const [n, { state }] of inputs.entries()) insertedStates.set(serialized[n]!, state);
  const states = new Map<string, unknown>(inputs.map(({ state }, n) => [state.id, serialized[n]]));
  // One array per column: one statement text for any number of payments (docs/operations.md).
  // The state goes as JSON text (in a jsonb[] postgres.js would send an object's `value` if it had
  // a `type`), and is not read back: it is what was just sent.
  const rows = await tx<Omit<PaymentRow, "state">[]>`
    insert into payments (id, merchant_id, mode, amount, currency, fee, description, redirect_url,
                          status, state, expires_at)
    select p.id, p.merchant_id, p.mode, p.amount, p.currency, p.fee, p.description, p.redirect_url,
           p.status, p.state::jsonb, p.expires_at
    from unnest(
      ${inputs.map((i) => i.state.id)}::uuid[],
      ${inputs.map((i) => i.merchantId)}::text[],
      ${inputs.map((i) => i.state.mode)}::text[],
      ${inputs.map((i) => i.state.amount.toString())}::bigint[],
      ${inputs.map((i) => i.state.currency)}::text[],
      ${inputs.map((i) => i.state.fee.toString())}::bigint[],
      ${inputs.map((i) => i.description) as string[]}::text[],
      ${inputs.map((i) => i.redirectUrl) as string[]}::text[],
      ${inputs.map((i) => i.state.status)}::text[],
      ${serialized.map((json) => JSON.stringify(json))}::text[],
      ${inputs.map((i) => new Date(i.state.expiresAt).toISOString())}::timestamptz[])
      as p(id, merchant_id, mode, amount, currency, fee, description, redirect_url, status, state, expires_at)
    on conflict (id) do nothing
    returning id, merchant_id, mode, amount, currency, fee, description, redirect_url, status, chain, coin,
      version, expires_at, created_at, updated_at`;
  // RETURNING promises no order.
  // The row postgres.js made is completed in place rather than copied.
  const byId = new Map<string, PaymentRow>(
    rows.map((row) => [row.id, Object.assign(row, { state: states.get(row.id) })]),
  );
  // An id that exists already was made by an earlier attempt of the same idempotent request
  // (ids derived from an Idempotency-Key): that payment is the answer.
  const existing = inputs.map((i) => i.state.id).filter((id) => !byId.has(id));
  if (existing.length > 0) {
    for (const row of await tx<PaymentRow[]>`select * from payments where id = any(${existing})`) {
      byId.set(row.id, row);
    }
  }
  return inputs.map((input) => byId.get(input.state.id)!);
}

/** A merchant sees only its own payments of the key's mode; anything else does not exist. */
export async function findPayment(
  sql: Sql,
  query: { id: string; merchantId?: string; mode?: Mode },
): Promise<PaymentRow | undefined> {
  if (!isUuid(query.id)) return undefined;
  const [row] = await sql<PaymentRow[]>`
    select * from payments where id = ${query.id}
    ${query.merchantId === undefined ? sql`` : sql`and merchant_id = ${query.merchantId}`}
    ${query.mode === undefined ? sql`` : sql`and mode = ${query.mode}`}`;
  return row;
}

export interface ListPaymentsQuery {
  merchantId: string;
  mode: Mode;
  limit: number;
  status?: string;
  /** Cursor: the id of the last payment of the previous page. */
  startingAfter?: string;
}

/** Newest first, with a cursor on (created_at, id) so pages never skip or repeat a payment. */
export async function listPayments(
  sql: Sql,
  q: ListPaymentsQuery,
): Promise<{ rows: PaymentRow[]; hasMore: boolean }> {
  let cursor: { created_at: Date; id: string } | undefined;
  if (q.startingAfter !== undefined) {
    const found = await findPayment(sql, { id: q.startingAfter, merchantId: q.merchantId, mode: q.mode });
    if (!found) return { rows: [], hasMore: false };
    cursor = found;
  }
  const rows = await sql<PaymentRow[]>`
    select * from payments
    where merchant_id = ${q.merchantId} and mode = ${q.mode}
    ${q.status === undefined ? sql`` : sql`and status = ${q.status}`}
    ${cursor === undefined ? sql`` : sql`and (created_at, id) < (${cursor.created_at}, ${cursor.id})`}
    order by created_at desc, id desc
    limit ${q.limit + 1}`;
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
