// The payment's side of an operator's retry of a refund that failed on chain (docs/operations.md,
// "A refund that failed on chain"): which of a payment's refunds were never sent, and the refund's
// command published once more, under a new message id, so settlement runs it again. The chain's
// side (the watcher's attestation of the failure) is the chain package's.
import { enqueueOutbox, type Sql } from "@gateway/db";
import type { Chain, Mode } from "@gateway/domain";
import { findPayment, stateOf } from "./payment-row.js";
import { refundCommand } from "./refund-command.js";

export interface UnsentRefund {
  refundId: string;
  /** Settlement's intent id for it (its journal key). */
  intentId: string;
  chain: Chain;
  mode: Mode;
}

async function paymentState(sql: Sql, paymentId: string) {
  const row = await findPayment(sql, { id: paymentId });
  return row && stateOf(row);
}

/** The payment's live refunds without a transaction yet; undefined when there is no such payment. */
export async function unsentRefunds(sql: Sql, paymentId: string): Promise<UnsentRefund[] | undefined> {
  const state = await paymentState(sql, paymentId);
  return state?.refunds
    .filter((r) => !r.simulated && r.txid === null)
    .map((r) => ({
      refundId: r.refundId,
      intentId: `refund:${r.refundId}`,
      chain: r.chain,
      mode: state.mode,
    }));
}

/**
 * Publishes the command of the payment's refund `refundId` again, as `refund:<id>:retry<attempt>`
 * on `subject` (`<p>.cmd.settle.refund`): built from the payment's state as its actor built the
 * first. False when the payment has no such unsent refund.
 */
export async function republishRefund(
  sql: Sql,
  r: { paymentId: string; refundId: string; attempt: number; subject: string },
): Promise<boolean> {
  const state = await paymentState(sql, r.paymentId);
  const refund = state?.refunds.find((x) => x.refundId === r.refundId && !x.simulated && x.txid === null);
  if (!state || !refund) return false;
  const id = `refund:${r.refundId}:retry${r.attempt}`;
  await enqueueOutbox(sql, [{ id, subject: r.subject, payload: refundCommand(state, refund) }]);
  return true;
}
