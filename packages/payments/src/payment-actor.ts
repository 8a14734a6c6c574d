import type { BusTopology } from "@gateway/bus";
import type { EventMessage, PaymentEvent, RefundNoticeCommand, SweepCommand } from "@gateway/contracts";
import {
  enqueueOutbox,
  type Fragment,
  newId,
  type OutboxMessage,
  type Sql,
  type TransactionSql,
} from "@gateway/db";
import {
  assertNever,
  type Decision,
  decide,
  type PaymentEffect,
  type PaymentMessage,
  type PaymentState,
  serializePaymentState,
} from "@gateway/domain";
import { creditPayment, owePaymentRefund, payPaymentRefund } from "@gateway/ledger";
import type { Logger } from "@gateway/logging";
import { toPaymentResource } from "./payment-resource.js";
import type { PaymentRow } from "./payment-row.js";
import { stateOf } from "./payment-row.js";
import { refundCommand } from "./refund-command.js";

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

/**
 * Runs one message through a payment's actor: the row is locked, so messages to one payment are
 * handled one at a time on any replica; the new state, its events and its work items (sweeps,
 * refunds) are written in the same transaction, and the outbox carries them onwards.
 * Returns undefined when the payment does not exist.
 */
export async function applyPaymentMessage(
  deps: PaymentActorDeps,
  paymentId: string,
  message: PaymentMessage,
  tx?: TransactionSql,
): Promise<ApplyResult | undefined> {
  const run = async (t: TransactionSql) => {
    const [row] = await t<PaymentRow[]>`select * from payments where id = ${paymentId} for update`;
    if (!row) return undefined;
    const decision = decide(stateOf(row), message);
    if (decision.rejected) {
      deps.log.info(
        { paymentId, message: message.type, reason: decision.rejected.code },
        "payment message not applied",
      );
      return { decision, row };
    }
    const { state } = decision;
    const updated = await writeState(t, paymentId, state);
    const { messages, events } = await effectMessages(t, deps, updated!, decision.effects);
    await enqueueOutbox(t, messages, events ? { alongside: events } : {});
    if (message.type === "refund_sent") {
      // A surplus refund leaves the vault now; one from a deposit address never entered it.
      const refund = state.refunds.find((r) => r.refundId === message.refundId);
      if (refund?.from === "vault") {
        await payPaymentRefund(t, { ...refund, mode: row.mode, paymentId, amount: refund.amount });
      }
    }
    return { decision, row: updated! };
  };
  return tx ? run(tx) : (deps.sql.begin(run) as Promise<ApplyResult | undefined>);
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

/** The new state on the payment's row; with `version`, only if the row is still at it. */
async function writeState(
  t: TransactionSql | Sql,
  paymentId: string,
  state: PaymentState,
  version?: number,
): Promise<PaymentRow | undefined> {
  const [updated] = await t<PaymentRow[]>`
    update payments set ${stateAssignments(t, state)}
    where id = ${paymentId} ${version === undefined ? t`` : t`and version = ${version}`} returning *`;
  return updated;
}

/**
 * What a new state sets on its payment's row, for an `update payments set …`: the state and the
 * columns read from it, and the next version. Every writer of a state uses this one list.
 */
export function stateAssignments(t: TransactionSql | Sql, state: PaymentState) {
  return t`state = ${t.json(serializePaymentState(state) as never)}, status = ${state.status},
      chain = ${state.wallet?.chain ?? null}, coin = ${state.wallet?.coin ?? null},
      quote_expires_at = ${runningQuoteEnd(state)},
      version = version + 1, updated_at = now()`;
}

/**
 * The effects' work in the transaction (the ledger's postings), and what goes with the new state:
 * the outbox's messages and the insert of the events, which the caller runs with the outbox's in
 * one statement.
 */
async function effectMessages(
  tx: TransactionSql,
  deps: PaymentActorDeps,
  row: PaymentRow,
  effects: PaymentEffect[],
): Promise<{ messages: OutboxMessage[]; events: Fragment | undefined }> {
  const messages: OutboxMessage[] = [];
  const events: { id: string; type: string; data: string; createdAt: string }[] = [];
  const { subjects } = deps.topology;
  for (const effect of effects) {
    switch (effect.type) {
      case "event": {
        const id = newId("evt");
        const createdAt = new Date();
        const event: PaymentEvent = {
          id,
          type: effect.event,
          created_at: createdAt.toISOString(),
          is_test: row.mode === "test",
          data: { payment: toPaymentResource(row, deps.publicBaseUrl) },
        };
        events.push({
          id,
          type: effect.event,
          data: JSON.stringify(event.data),
          createdAt: event.created_at,
        });
        messages.push({
          id,
          subject: subjects.event(effect.event),
          payload: { merchant_id: row.merchant_id, mode: row.mode, event } satisfies EventMessage,
        });
        break;
      }
      case "sweep":
        messages.push({
          id: `sweep:${row.id}`,
          subject: subjects.settlement("sweep"),
          payload: {
            payment_id: row.id,
            mode: row.mode,
            chain: effect.chain,
            coin: effect.coin,
            address: effect.address,
            amount: effect.amount.toString(),
          } satisfies SweepCommand,
        });
        break;
      case "refund": {
        if (effect.from === "vault") {
          const refund = { ...effect, mode: row.mode, paymentId: row.id };
          await owePaymentRefund(tx, refund);
          // A simulated surplus is "returned" at once, in the test books only.
          if (effect.simulated) await payPaymentRefund(tx, refund);
        }
        // A simulated refund (test mode) moves nothing; it is already recorded in the state.
        if (effect.simulated) break;
        messages.push({
          id: `refund:${effect.refundId}`,
          subject: subjects.settlement("refund"),
          payload: refundCommand(row, effect),
        });
        break;
      }
      case "refund_notice":
        messages.push({
          id: `refund-notice:${effect.refundId}`,
          subject: subjects.mail("refund"),
          payload: {
            payment_id: row.id,
            refund_id: effect.refundId,
            sent_at: new Date().toISOString(),
          } satisfies RefundNoticeCommand,
        });
        break;
      case "credit":
        // The merchant's balance and the fee, in the transaction that completes the payment.
        await creditPayment(tx, {
          mode: row.mode,
          chain: effect.chain,
          coin: effect.coin,
          paymentId: row.id,
          merchantId: row.merchant_id,
          gross: effect.gross,
          fee: effect.fee,
          net: effect.net,
          usdValue: effect.usdValue ?? null,
          usdRate: effect.usdRate ?? null,
        });
        break;
      default:
        assertNever(effect);
    }
  }
  // In the effects' order: the events' insertion sequence orders a payment's events.
  const inserted =
    events.length === 0
      ? undefined
      : tx`insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
          select e.id, ${row.merchant_id}, ${row.mode}, e.type, ${row.id}, e.data::jsonb, e.created_at
          from unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[],
                      ${events.map((e) => e.data)}::text[], ${events.map((e) => e.createdAt)}::timestamptz[])
            with ordinality as e(id, type, data, created_at, ord)
          order by e.ord`;
  return { messages, events: inserted };
}

/** When the current wallet's quote ends, while it runs; the expiry sweeper's index reads it. */
function runningQuoteEnd(state: PaymentState): Date | null {
  const quote = state.wallet?.quote;
  return quote && !quote.ended ? new Date(quote.expiresAt) : null;
}

/** For callers holding a row: the current state without a round trip. */
export { stateOf };
