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

/** No record of handled ids: the actor's decider rejects a message its state already applied (property-tested). */
export function paymentMessageBatches(
  deps: PaymentActorDeps,
): MessageBatcher<ToPayment, ApplyResult | undefined> {
  return applyWholeBatches<ToPayment, ApplyResult | undefined>(deps.sql, (tx, batch) =>
    applyPaymentMessages(deps, tx, batch),
  );
}
