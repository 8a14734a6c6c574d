// What a payment's new state's effects become in its transaction: the ledger's postings, the
// outbox's messages and the events' rows (which the relay publishes as they are). Decided without
// the database, so the actor writes a batch's work of each kind in one statement.
import type { BusTopology } from "@gateway/bus";
import type { PaymentEvent, RefundNoticeCommand, SweepCommand } from "@gateway/contracts";
import { type Fragment, newId, type OutboxMessage, type TransactionSql } from "@gateway/db";
import { assertNever, type PaymentEffect } from "@gateway/domain";
import { type LedgerTransactionInput, paymentCredit, refundStep } from "@gateway/ledger";
import { toPaymentResource } from "./payment-resource.js";
import type { PaymentRow } from "./payment-row.js";
import { refundCommand } from "./refund-command.js";

type Effect<T extends PaymentEffect["type"]> = Extract<PaymentEffect, { type: T }>;
type Subjects = BusTopology["subjects"];

export interface EventRow {
  id: string;
  type: string;
  data: string;
  createdAt: string;
  paymentId: string;
  merchantId: string;
  mode: string;
}

/** A new state's work: the outbox's messages, the events' rows and the ledger's postings. */
export interface EffectWork {
  messages: OutboxMessage[];
  events: EventRow[];
  postings: LedgerTransactionInput[];
}

/** Adds the effects of the state on `row` to `work`, in the effects' order. */
export function addEffectWork(
  work: EffectWork,
  deps: { topology: BusTopology; publicBaseUrl: string },
  row: PaymentRow,
  effects: PaymentEffect[],
): void {
  const { subjects } = deps.topology;
  for (const effect of effects) {
    switch (effect.type) {
      case "event":
        work.events.push(paymentEvent(deps.publicBaseUrl, row, effect));
        break;
      case "sweep":
        work.messages.push(sweepMessage(subjects, row, effect));
        break;
      case "refund": {
        const message = refundWork(work.postings, subjects, row, effect);
        if (message) work.messages.push(message);
        break;
      }
      case "refund_notice":
        work.messages.push(refundNoticeMessage(subjects, row, effect));
        break;
      case "credit":
        work.postings.push(credit(row, effect));
        break;
      default:
        assertNever(effect);
    }
  }
}

/** The event's row in `events`, which the relay publishes for the notifier as it is. */
function paymentEvent(publicBaseUrl: string, row: PaymentRow, effect: Effect<"event">): EventRow {
  const data: PaymentEvent["data"] = { payment: toPaymentResource(row, publicBaseUrl) };
  return {
    id: newId("evt"),
    type: effect.event,
    data: JSON.stringify(data),
    createdAt: new Date().toISOString(),
    paymentId: row.id,
    merchantId: row.merchant_id,
    mode: row.mode,
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
function refundWork(
  postings: LedgerTransactionInput[],
  subjects: Subjects,
  row: PaymentRow,
  effect: Effect<"refund">,
): OutboxMessage | undefined {
  if (effect.from === "vault") {
    const refund = { ...effect, mode: row.mode, paymentId: row.id };
    postings.push(refundStep(refund, "owed"));
    // A simulated surplus is "returned" at once, in the test books only.
    if (effect.simulated) postings.push(refundStep(refund, "paid"));
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
function credit(row: PaymentRow, effect: Effect<"credit">): LedgerTransactionInput {
  return paymentCredit({
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

/**
 * The events of any payments in one insert, in the order given: the insertion sequence orders a
 * payment's events, so each payment's must come in its effects' order.
 */
export function insertEvents(tx: TransactionSql, events: EventRow[]): Fragment | undefined {
  if (events.length === 0) return undefined;
  const column = (of: (e: EventRow) => string) => events.map(of);
  return tx`insert into events (id, merchant_id, mode, type, payment_id, data, created_at)
    select e.id, e.merchant_id, e.mode, e.type, e.payment_id, e.data::jsonb, e.created_at
    from unnest(${column((e) => e.id)}::text[], ${column((e) => e.merchantId)}::text[],
                ${column((e) => e.mode)}::text[], ${column((e) => e.type)}::text[],
                ${column((e) => e.paymentId)}::uuid[], ${column((e) => e.data)}::text[],
                ${column((e) => e.createdAt)}::timestamptz[])
      with ordinality as e(id, merchant_id, mode, type, payment_id, data, created_at, ord)
    order by e.ord`;
}
