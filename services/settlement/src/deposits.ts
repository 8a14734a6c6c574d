import type { Bus, RunningConsumer } from "@gateway/bus";
import type { DepositReport } from "@gateway/contracts";
import { type PaymentMessage, parseCoin } from "@gateway/domain";
import type { PaymentActorDeps } from "@gateway/payments";
import { consumeCommands } from "./command-consumer.js";
import { paymentMessageBatches } from "./payment-message-batches.js";

const CONSUMER = "settlement-deposits";

function toPaymentMessage(report: DepositReport): PaymentMessage {
  const coin = parseCoin(report.coin);
  const amount = BigInt(report.amount);
  switch (report.stage) {
    case "seen":
      return { type: "transfer_seen", transferId: report.transfer_id, coin, amount, sender: report.sender };
    case "final":
      return {
        type: "transfer_final",
        transferId: report.transfer_id,
        coin,
        amount,
        sender: report.sender,
        ...(report.attestation
          ? { attestation: { keyId: report.attestation.key_id, signature: report.attestation.signature } }
          : {}),
      };
    case "dropped":
      return { type: "transfer_dropped", transferId: report.transfer_id };
  }
}

/**
 * Deposits become messages to the payment that owns the address; reports that arrive together
 * share one transaction (paymentMessageBatches), and a report delivered again changes nothing.
 */
export function startDepositConsumer(deps: PaymentActorDeps & { bus: Bus }): Promise<RunningConsumer> {
  const { bus, sql, log } = deps;
  const apply = paymentMessageBatches(deps);
  return consumeCommands<DepositReport>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allDeposits,
    // Reports in hand wait for the batch being written and then form the next one.
    concurrency: 64,
    handle: async ({ data }) => {
      // An address belongs to one payment for good (deposit_wallets rows are never reassigned),
      // so it is looked up before the batch, which needs the payment to order its messages.
      const [wallet] = await sql<{ payment_id: string }[]>`
        select payment_id from deposit_wallets where chain = ${data.chain} and address = ${data.address}`;
      if (!wallet) {
        log.warn(
          { chain: data.chain, address: data.address, transferId: data.transfer_id },
          "deposit to an unknown address",
        );
        return;
      }
      await apply({ paymentId: wallet.payment_id, message: toPaymentMessage(data) });
    },
  });
}
