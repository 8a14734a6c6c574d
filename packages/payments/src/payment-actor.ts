import type { BusTopology } from "@gateway/bus";
import { enqueueOutbox, type Sql, type TransactionSql } from "@gateway/db";
import {
  type Decision,
  decide,
  type PaymentMessage,
  type PaymentState,
  serializePaymentState,
} from "@gateway/domain";
import { payPaymentRefund } from "@gateway/ledger";
import type { Logger } from "@gateway/logging";
import { effectMessages } from "./payment-effects.js";
import type { PaymentRow } from "./payment-row.js";
import { stateOf } from "./payment-row.js";

export interface PaymentActorDeps {
  sql: Sql;
  topology: BusTopology;
  log: Logger;
  publicBaseUrl: string;
}

export interface ApplyResult {
  decision: Decision;
  row: PaymentRow;
}

/**
 * Runs one message through a payment's actor: the row is locked, so messages to one payment are
 * handled one at a time on any replica; the new state, its events and its work items (sweeps,
 * refunds) are written in the same transaction, and the outbox carries them onwards.
 * Returns undefined when the payment does not exist.
 */
export async function applyPaymentMessage(
  deps: PaymentActorDeps,
  paymentId: string,
  message: PaymentMessage,
  tx?: TransactionSql,
): Promise<ApplyResult | undefined> {
  const run = async (t: TransactionSql) => {
    const [row] = await t<PaymentRow[]>`select * from payments where id = ${paymentId} for update`;
    if (!row) return undefined;
    const decision = decide(stateOf(row), message);
    if (decision.rejected) {
      deps.log.info(
        { paymentId, message: message.type, reason: decision.rejected.code },
        "payment message not applied",
      );
      return { decision, row };
    }
    const { state } = decision;
    const updated = await writeState(t, paymentId, state);
    const { messages, events } = await effectMessages(t, deps, updated!, decision.effects);
    await enqueueOutbox(t, messages, events ? { alongside: events } : {});
    if (message.type === "refund_sent") {
      // A surplus refund leaves the vault now; one from a deposit address never entered it.
      const refund = state.refunds.find((r) => r.refundId === message.refundId);
      if (refund?.from === "vault") {
        await payPaymentRefund(t, { ...refund, mode: row.mode, paymentId, amount: refund.amount });
      }
    }
    return { decision, row: updated! };
  };
  return tx ? run(tx) : (deps.sql.begin(run) as Promise<ApplyResult | undefined>);
}

/**
 * For a caller that has just read the payment's row outside a transaction: a message that changes
 * only the state (no events, no work, no money) is applied with one conditional update, taken
 * only if the row is still the version the decision was made on. Otherwise (a rejection, effects,
 * or a row that changed meanwhile) the message goes the locked way of `applyPaymentMessage`, so
 * the outcome is the same as if the row had been locked from the start.
 */
export async function applyPaymentMessageToRow(
  deps: PaymentActorDeps,
  row: PaymentRow,
  message: PaymentMessage,
): Promise<ApplyResult | undefined> {
  const decision = decide(stateOf(row), message);
  if (!decision.rejected && decision.effects.length === 0 && message.type !== "refund_sent") {
    const updated = await writeState(deps.sql, row.id, decision.state, row.version);
    if (updated) return { decision, row: updated };
  }
  return applyPaymentMessage(deps, row.id, message);
}

/** The new state on the payment's row; with `version`, only if the row is still at it. */
async function writeState(
  t: TransactionSql | Sql,
  paymentId: string,
  state: PaymentState,
  version?: number,
): Promise<PaymentRow | undefined> {
  const [updated] = await t<PaymentRow[]>`
    update payments set ${stateAssignments(t, state)}
    where id = ${paymentId} ${version === undefined ? t`` : t`and version = ${version}`} returning *`;
  return updated;
}

/**
 * What a new state sets on its payment's row, for an `update payments set …`: the state and the
 * columns read from it, and the next version. Every writer of a state uses this one list.
 */
export function stateAssignments(t: TransactionSql | Sql, state: PaymentState) {
  return t`state = ${t.json(serializePaymentState(state) as never)}, status = ${state.status},
      chain = ${state.wallet?.chain ?? null}, coin = ${state.wallet?.coin ?? null},
      quote_expires_at = ${runningQuoteEnd(state)},
      version = version + 1, updated_at = now()`;
}

/** When the current wallet's quote ends, while it runs; the expiry sweeper's index reads it. */
function runningQuoteEnd(state: PaymentState): Date | null {
  const quote = state.wallet?.quote;
  return quote && !quote.ended ? new Date(quote.expiresAt) : null;
}

/** For callers holding a row: the current state without a round trip. */
export { stateOf };
