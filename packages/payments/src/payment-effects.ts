// What a payment's new state's effects become in its transaction: the ledger's postings, the
// outbox's messages and the events' rows (which the relay publishes as they are).
import type { BusTopology } from "@gateway/bus";
import type { PaymentEvent, RefundNoticeCommand, SweepCommand } from "@gateway/contracts";
import { type Fragment, newId, type OutboxMessage, type TransactionSql } from "@gateway/db";
import { assertNever, type PaymentEffect } from "@gateway/domain";
import { creditPayment, owePaymentRefund, payPaymentRefund } from "@gateway/ledger";
import { toPaymentResource } from "./payment-resource.js";
import type { PaymentRow } from "./payment-row.js";
import { refundCommand } from "./refund-command.js";

type Effect<T extends PaymentEffect["type"]> = Extract<PaymentEffect, { type: T }>;
type Subjects = BusTopology["subjects"];

interface EventRow {
  id: string;
  type: string;
  data: string;
  createdAt: string;
}

/**
 * The effects' work in the transaction (the ledger's postings), and what goes with the new state:
 * the outbox's messages and the insert of the events, which the caller runs with the outbox's in
 * one statement.
 */
export async function effectMessages(
  tx: TransactionSql,
  deps: { topology: BusTopology; publicBaseUrl: string },
  row: PaymentRow,
  effects: PaymentEffect[],
): Promise<{ messages: OutboxMessage[]; events: Fragment | undefined }> {
  const messages: OutboxMessage[] = [];
  const events: EventRow[] = [];
  const { subjects } = deps.topology;
  for (const effect of effects) {
    switch (effect.type) {
      case "event":
        events.push(paymentEvent(deps.publicBaseUrl, row, effect));
        break;
      case "sweep":
        messages.push(sweepMessage(subjects, row, effect));
        break;
      case "refund": {
        const message = await refundWork(tx, subjects, row, effect);
        if (message) messages.push(message);
        break;
      }
      case "refund_notice":
        messages.push(refundNoticeMessage(subjects, row, effect));
        break;
      case "credit":
        await credit(tx, row, effect);
        break;
      default:
        assertNever(effect);
    }
  }
  return { messages, events: insertEvents(tx, row, events) };
}

/** The event's row in `events`, which the relay publishes for the notifier as it is. */
function paymentEvent(publicBaseUrl: string, row: PaymentRow, effect: Effect<"event">): EventRow {
  const data: PaymentEvent["data"] = { payment: toPaymentResource(row, publicBaseUrl) };
  return {
    id: newId("evt"),
    type: effect.event,
    data: JSON.stringify(data),
    createdAt: new Date().toISOString(),
  };
}

function sweepMessage(subjects: Subjects, row: PaymentRow, effect: Effect<"sweep">): OutboxMessage {
  return {
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
  };
}

/** A refund from the vault is owed in the ledger now; the command to send it, unless simulated. */
async function refundWork(
  tx: TransactionSql,
  subjects: Subjects,
  row: PaymentRow,
  effect: Effect<"refund">,
): Promise<OutboxMessage | undefined> {
  if (effect.from === "vault") {
    const refund = { ...effect, mode: row.mode, paymentId: row.id };
    await owePaymentRefund(tx, refund);
    // A simulated surplus is "returned" at once, in the test books only.
    if (effect.simulated) await payPaymentRefund(tx, refund);
  }
  // A simulated refund (test mode) moves nothing; it is already recorded in the state.
  if (effect.simulated) return undefined;
  return {
    id: `refund:${effect.refundId}`,
    subject: subjects.settlement("refund"),
    payload: refundCommand(row, effect),
  };
}

function refundNoticeMessage(
  subjects: Subjects,
  row: PaymentRow,
  effect: Effect<"refund_notice">,
): OutboxMessage {
  return {
    id: `refund-notice:${effect.refundId}`,
    subject: subjects.mail("refund"),
    payload: {
      payment_id: row.id,
      refund_id: effect.refundId,
      sent_at: new Date().toISOString(),
    } satisfies RefundNoticeCommand,
  };
}

/** The merchant's balance and the fee, in the transaction that completes the payment. */
async function credit(tx: TransactionSql, row: PaymentRow, effect: Effect<"credit">): Promise<void> {
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
}

/** In the effects' order: the events' insertion sequence orders a payment's events. */
function insertEvents(tx: TransactionSql, row: PaymentRow, events: EventRow[]): Fragment | undefined {
  if (events.length === 0) return undefined;
  return tx`insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
    select e.id, ${row.merchant_id}, ${row.mode}, e.type, ${row.id}, e.data::jsonb, e.created_at
    from unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[],
                ${events.map((e) => e.data)}::text[], ${events.map((e) => e.createdAt)}::timestamptz[])
      with ordinality as e(id, type, data, created_at, ord)
    order by e.ord`;
}
