// Messages to payment actors from any of settlement's consumers. Messages that arrive together
// are handed to the actor as one batch (applyWholeBatches), which writes them in a fixed number
// of statements in one transaction, so completions, which hold the ledger rows' locks to their
// commit, do not queue on those locks one transaction each.
import { applyWholeBatches, type MessageBatcher } from "@gateway/db";
import {
  type ApplyResult,
  applyPaymentMessages,
  type PaymentActorDeps,
  type ToPayment,
} from "@gateway/payments";

/**
 * A message delivered again changes nothing: the actor's decider rejects a message its state has
 * already applied (a property test holds it to that), so no record of handled ids is kept. The
 * actor decides a batch's messages in arrival order, so one payment's stay in order.
 */
export function paymentMessageBatches(
  deps: PaymentActorDeps,
): MessageBatcher<ToPayment, ApplyResult | undefined> {
  return applyWholeBatches<ToPayment, ApplyResult | undefined>(deps.sql, (tx, batch) =>
    applyPaymentMessages(deps, tx, batch),
  );
}
