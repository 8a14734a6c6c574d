// Messages to payment actors, each applied once, from any of settlement's consumers. Messages that
// arrive together share one transaction (handleOnceInBatches), so completions, which hold the
// ledger rows' locks to their commit, do not queue on those locks one transaction each.
import { handleOnceInBatches, type OnceBatcher } from "@gateway/db";
import type { PaymentMessage } from "@gateway/domain";
import { applyPaymentMessage, type PaymentActorDeps } from "@gateway/payments";

export interface ToPayment {
  paymentId: string;
  message: PaymentMessage;
}

/** `consumer` names the records in processed_messages: one per message id and consumer. */
export function paymentMessagesOnce(deps: PaymentActorDeps, consumer: string): OnceBatcher<ToPayment> {
  return handleOnceInBatches<ToPayment>(
    deps.sql,
    consumer,
    (tx, { paymentId, message }) => applyPaymentMessage(deps, paymentId, message, tx),
    // By payment: a payment's two wallets (two chains chosen) are one actor.
    { keyOf: ({ paymentId }) => paymentId },
  );
}
