import type { Bus, RunningConsumer } from "@gateway/bus";
import type { PaymentCommand } from "@gateway/contracts";
import { handleOnce } from "@gateway/db";
import { deserializePaymentMessage } from "@gateway/domain";
import { applyPaymentMessage, type PaymentActorDeps } from "@gateway/payments";
import { consumeCommands } from "./command-consumer.js";

const CONSUMER = "settlement-payment-commands";

/**
 * Commands addressed to one payment actor (`<p>.cmd.payment.<id>`), e.g. a test-mode simulation
 * requested on the checkout page. Each message id is handled once, in the transaction that
 * applies it.
 */
export function startPaymentCommands(deps: PaymentActorDeps & { bus: Bus }): Promise<RunningConsumer> {
  const { bus, sql, log } = deps;
  return consumeCommands<PaymentCommand>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allPaymentCommands,
    handle: async ({ id, data }) => {
      const message = deserializePaymentMessage(data.message);
      const outcome = await handleOnce(sql, CONSUMER, id, (tx) =>
        applyPaymentMessage(deps, data.payment_id, message, tx),
      );
      if (outcome.ran)
        log.info(
          { paymentId: data.payment_id, messageId: id, command: message.type },
          "payment command applied",
        );
    },
  });
}
