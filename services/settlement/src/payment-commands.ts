import type { Bus, RunningConsumer } from "@gateway/bus";
import type { PaymentCommand } from "@gateway/contracts";
import { deserializePaymentMessage } from "@gateway/domain";
import type { PaymentActorDeps } from "@gateway/payments";
import { consumeCommands } from "./command-consumer.js";
import { paymentMessageBatches } from "./payment-message-batches.js";

const CONSUMER = "settlement-payment-commands";

/**
 * Commands addressed to one payment actor (`<p>.cmd.payment.<type>`, the payment id in the payload), e.g. a test-mode simulation
 * requested on the checkout page. Commands that arrive together share one transaction, applied
 * in arrival order; a command delivered again is rejected by the payment's state.
 */
export function startPaymentCommands(deps: PaymentActorDeps & { bus: Bus }): Promise<RunningConsumer> {
  const { bus, log } = deps;
  const apply = paymentMessageBatches(deps);
  return consumeCommands<PaymentCommand>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allPaymentCommands,
    // Messages in hand wait for the batch being written and then form the next one: this many
    // in hand lets a batch grow past the default 16.
    concurrency: 64,
    handle: async ({ id, data }) => {
      // A command that cannot be read fails here, alone, before it could join a batch.
      const message = deserializePaymentMessage(data.message);
      const outcome = await apply({ paymentId: data.payment_id, message });
      // A refused command (one applied before, say) is logged by the actor with its reason.
      if (outcome && !outcome.decision.rejected)
        log.info(
          { paymentId: data.payment_id, messageId: id, command: message.type },
          "payment command applied",
        );
    },
  });
}
