import type { RefundCommand } from "@gateway/contracts";
import type { Mode, Refund } from "@gateway/domain";

/** What settlement is asked to send for a refund (`<p>.cmd.settle.refund`). */
export function refundCommand(payment: { id: string; mode: Mode }, refund: Refund): RefundCommand {
  // Only a simulated refund has no recipient (the sender of the transfer it returns).
  if (refund.to === null) throw new Error(`refund ${refund.refundId} has no recipient`);
  return {
    payment_id: payment.id,
    mode: payment.mode,
    refund_id: refund.refundId,
    kind: refund.kind,
    chain: refund.chain,
    coin: refund.coin,
    amount: refund.amount.toString(),
    to: refund.to,
    from: refund.from,
    transfer_id: refund.transferId,
    // The watcher's attestation the signer checks the refund against.
    attestation: refund.attestation ?? null,
    transfer_amount: refund.transferAmount?.toString() ?? null,
  };
}
