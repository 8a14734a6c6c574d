// Messages to payment actors from any of settlement's consumers. Messages that arrive together
// share one transaction (applyInBatches), so completions, which hold the ledger rows' locks to
// their commit, do not queue on those locks one transaction each.
import { applyInBatches, type MessageBatcher } from "@gateway/db";
import type { PaymentMessage } from "@gateway/domain";
import { type ApplyResult, applyPaymentMessage, type PaymentActorDeps } from "@gateway/payments";

export interface ToPayment {
  paymentId: string;
  message: PaymentMessage;
}

/**
 * A message delivered again changes nothing: the actor's decider rejects a message its state has
 * already applied (a property test holds it to that), so no record of handled ids is kept.
 */
export function paymentMessageBatches(
  deps: PaymentActorDeps,
): MessageBatcher<ToPayment, ApplyResult | undefined> {
  return applyInBatches<ToPayment, ApplyResult | undefined>(
    deps.sql,
    (tx, { paymentId, message }) => applyPaymentMessage(deps, paymentId, message, tx),
    // By payment: a payment's two wallets (two chains chosen) are one actor.
    { keyOf: ({ paymentId }) => paymentId },
  );
}
