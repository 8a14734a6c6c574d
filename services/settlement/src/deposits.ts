import type { Bus, RunningConsumer } from "@gateway/bus";
import type { DepositReport } from "@gateway/contracts";
import { handleOnce } from "@gateway/db";
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

/** Deposits become messages to the payment that owns the address, each once. */
export function startDepositConsumer(deps: PaymentActorDeps & { bus: Bus }): Promise<RunningConsumer> {
  const { bus, sql, log } = deps;
  return consumeCommands<DepositReport>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allDeposits,
    handle: async ({ id, data }) => {
      await handleOnce(sql, CONSUMER, id, async (tx) => {
        const [wallet] = await tx<{ payment_id: string }[]>`
          select payment_id from deposit_wallets where chain = ${data.chain} and address = ${data.address}`;
        if (!wallet) {
          log.warn(
            { chain: data.chain, address: data.address, transferId: data.transfer_id },
            "deposit to an unknown address",
          );
          return;
        }
        await applyPaymentMessage(deps, wallet.payment_id, toPaymentMessage(data), tx);
      });
    },
  });
}
