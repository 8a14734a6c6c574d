import type { BusTopology } from "@gateway/bus";
import { enqueueOutbox, type Sql, type TransactionSql } from "@gateway/db";
import { type Decision, decide, type PaymentMessage, type PaymentState } from "@gateway/domain";
import { postTransactions, refundStep } from "@gateway/ledger";
import type { Logger } from "@gateway/logging";
import { addEffectWork, type EffectWork, insertEvents } from "./payment-effects.js";
import { nextRow, type PaymentRow, STATE_COLUMN_NAMES, stateAssignments, stateOf } from "./payment-row.js";

export interface PaymentActorDeps {
  sql: Sql;
  topology: BusTopology;
  log: Logger;
  publicBaseUrl: string;
}

export interface ApplyResult {
  decision: Decision;
  row: PaymentRow;
}

/** A message and the payment it is for. */
export interface ToPayment {
  paymentId: string;
  message: PaymentMessage;
}

/**
 * Runs one message through a payment's actor: `applyPaymentMessages` with a batch of one.
 * Returns undefined when the payment does not exist.
 */
export async function applyPaymentMessage(
  deps: PaymentActorDeps,
  paymentId: string,
  message: PaymentMessage,
  tx?: TransactionSql,
): Promise<ApplyResult | undefined> {
  const run = async (t: TransactionSql) => (await applyPaymentMessages(deps, t, [{ paymentId, message }]))[0];
  return tx ? run(tx) : (deps.sql.begin(run) as Promise<ApplyResult | undefined>);
}

/**
 * A batch of messages through their actors in a fixed number of statements: rows locked in id order
 * (batches queue, never deadlock), each message decided in arrival order, then one write per table.
 */
export async function applyPaymentMessages(
  deps: PaymentActorDeps,
  tx: TransactionSql,
  batch: ToPayment[],
): Promise<(ApplyResult | undefined)[]> {
  const { rows, now } = await lockPayments(tx, batch);
  const work: EffectWork = { messages: [], events: [], postings: [] };
  const changed = new Set<string>();
  const results = batch.map(({ paymentId, message }) => {
    const row = rows.get(paymentId);
    if (!row) return undefined;
    const decision = decide(stateOf(row), message);
    if (decision.rejected) {
      deps.log.info(
        { paymentId, message: message.type, reason: decision.rejected.code },
        "payment message not applied",
      );
      return { decision, row };
    }
    const updated = nextRow(row, decision.state, now);
    rows.set(paymentId, updated);
    changed.add(paymentId);
    addEffectWork(work, deps, updated, decision.effects);
    if (message.type === "refund_sent") refundPaid(work, updated, decision.state, message.refundId);
    return { decision, row: updated };
  });
  await writeWork(
    tx,
    [...changed].map((id) => rows.get(id)!),
    work,
  );
  return results;
}

/** The batch's payments, locked, and the transaction's `now()`, which `updated_at` takes. */
async function lockPayments(
  tx: TransactionSql,
  batch: ToPayment[],
): Promise<{ rows: Map<string, PaymentRow>; now: Date }> {
  const ids = [...new Set(batch.map((m) => m.paymentId))];
  const locked = await tx<(PaymentRow & { locked_at: Date })[]>`
    select *, now() as locked_at from payments where id = any(${ids}::uuid[]) order by id for update`;
  const rows = new Map<string, PaymentRow>();
  for (const { locked_at: _, ...row } of locked) rows.set(row.id, row);
  return { rows, now: locked[0]?.locked_at ?? new Date() };
}

/** A surplus refund leaves the vault when it is sent; one from a deposit address never entered it. */
function refundPaid(work: EffectWork, row: PaymentRow, state: PaymentState, refundId: string): void {
  const refund = state.refunds.find((r) => r.refundId === refundId);
  if (refund?.from === "vault") {
    work.postings.push(refundStep({ ...refund, mode: row.mode, paymentId: row.id }, "paid"));
  }
}

/**
 * The batch's writes, sent together (pipelined on the transaction's connection): the payments
 * whose state changed, in one update; the events with the outbox's messages; the postings.
 */
async function writeWork(tx: TransactionSql, changed: PaymentRow[], work: EffectWork): Promise<void> {
  const events = insertEvents(tx, work.events);
  const writes: Promise<unknown>[] = [];
  if (changed.length > 0) writes.push(updateStates(tx, changed));
  if (events || work.messages.length > 0) {
    writes.push(enqueueOutbox(tx, work.messages, events ? { alongside: events } : {}));
  }
  if (work.postings.length > 0) writes.push(postTransactions(tx, work.postings));
  // allSettled, not all: every statement has answered before the transaction ends, whichever failed.
  const failed = (await Promise.allSettled(writes)).find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * For a caller that has just read the payment's row outside a transaction: a message that changes
 * only the state (no events, no work, no money) is applied with one conditional update, taken
 * only if the row is still the version the decision was made on. Otherwise (a rejection, effects,
 * or a row that changed meanwhile) the message goes the locked way of `applyPaymentMessage`, so
 * the outcome is the same as if the row had been locked from the start.
 */
export async function applyPaymentMessageToRow(
  deps: PaymentActorDeps,
  row: PaymentRow,
  message: PaymentMessage,
): Promise<ApplyResult | undefined> {
  const decision = decide(stateOf(row), message);
  if (!decision.rejected && decision.effects.length === 0 && message.type !== "refund_sent") {
    const updated = await writeState(deps.sql, row.id, decision.state, row.version);
    if (updated) return { decision, row: updated };
  }
  return applyPaymentMessage(deps, row.id, message);
}

/** The new state on the payment's row, only if the row is still at `version`. */
async function writeState(
  sql: Sql,
  paymentId: string,
  state: PaymentState,
  version: number,
): Promise<PaymentRow | undefined> {
  const [updated] = await sql<PaymentRow[]>`
    update payments set ${stateAssignments(sql, state)}
    where id = ${paymentId} and version = ${version} returning *`;
  return updated;
}

/**
 * The batch's last states in one statement, each row's columns as `stateAssignments` sets them
 * (the rows were locked and decided on, so the versions are the ones the rows reach).
 */
async function updateStates(tx: TransactionSql, rows: PaymentRow[]): Promise<void> {
  const columns = STATE_COLUMN_NAMES;
  const values = rows.map((row) => ({
    id: row.id,
    version: row.version,
    ...Object.fromEntries(columns.map((c) => [c, row[c as keyof PaymentRow]])),
  }));
  await tx`update payments p
    set (${tx(columns)}, version, updated_at) = (${tx(columns.map((c) => `u.${c}`))}, u.version, now())
    from jsonb_populate_recordset(null::payments, ${tx.json(values as never)}) as u
    where p.id = u.id`;
}

/** For callers holding a row: the current state without a round trip. */
export { stateAssignments, stateOf };
