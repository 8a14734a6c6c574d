import type { Bus, RunningConsumer } from "@gateway/bus";
import type { DepositReport } from "@gateway/contracts";
import { handleOnceInBatches } from "@gateway/db";
import { type PaymentMessage, parseCoin } from "@gateway/domain";
import { applyPaymentMessage, type PaymentActorDeps } from "@gateway/payments";
import { consumeCommands } from "./command-consumer.js";

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
 * Deposits become messages to the payment that owns the address, each once. Reports that arrive
 * together share one transaction (one payment's in arrival order, different payments' side by
 * side): a final deposit can complete a payment, whose ledger posting takes the merchant's, the
 * vault's and the fee accounts' rows, and a transaction per report queued them on those locks.
 */
export function startDepositConsumer(deps: PaymentActorDeps & { bus: Bus }): Promise<RunningConsumer> {
  const { bus, sql, log } = deps;
  const apply = handleOnceInBatches<{ paymentId: string; message: PaymentMessage }>(
    sql,
    CONSUMER,
    (tx, { paymentId, message }) => applyPaymentMessage(deps, paymentId, message, tx),
    // By payment, not by address: a payment's two wallets (two chains chosen) are one actor.
    { keyOf: ({ paymentId }) => paymentId },
  );
  return consumeCommands<DepositReport>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allDeposits,
    // Reports in hand wait for the batch being written and then form the next one.
    concurrency: 64,
    handle: async ({ id, data }) => {
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
      await apply(id, { paymentId: wallet.payment_id, message: toPaymentMessage(data) });
    },
  });
}
