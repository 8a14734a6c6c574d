// Runs the payout decider against PostgreSQL: the row is locked, so messages to one payout are
// handled one at a time on any replica, and the new state, its ledger postings, its event and its
// outbox messages are written in the caller's transaction.
import type { Chain, PayoutCommand, PayoutEvent, PayoutEventType } from "@gateway/contracts";
import { enqueueOutbox, newId, type OutboxMessage, outboxWritten, type TransactionSql } from "@gateway/db";
import { assertNever } from "@gateway/domain";
import { completePayout, type PayoutMovement, releasePayout, reservePayout } from "@gateway/ledger";
import {
  decide,
  type NewPayoutState,
  newPayout,
  type PayoutDecision,
  type PayoutEffect,
  type PayoutMessage,
  type PayoutState,
} from "./payout.js";
import {
  insertPayout,
  type PayoutRow,
  type StoredPayoutApproval,
  stateOf,
  toPayoutResource,
  updatePayout,
} from "./payout-row.js";

/** Subjects the payout actor publishes on; from the bus topology. */
export interface PayoutSubjects {
  /** Where settlement's payout actor listens: one subject per chain, the payout id in the payload
   * (a subject per payout would cost nats-server memory for the stream's whole retention). */
  payoutCommand(chain: Chain): string;
}

/** `<p>.cmd.payout.<chain>`: inside the commands stream, outside settlement-work's `cmd.settle.>`. */
export function payoutSubjects(topology: { prefix: string }): PayoutSubjects & { allPayoutCommands: string } {
  return {
    payoutCommand: (chain) => `${topology.prefix}.cmd.payout.${chain}`,
    allPayoutCommands: `${topology.prefix}.cmd.payout.>`,
  };
}

export interface NewPayout extends Omit<NewPayoutState, "id"> {
  /** Manual live payouts carry the API's approval; test payouts are simulated and need none. */
  approval?: StoredPayoutApproval | null;
  id?: string;
  /** Put back from the signer's record after a restore of the database: reserved whatever the balance. */
  alreadySent?: boolean;
}

/**
 * Records a pending payout, reserves its amount (InsufficientBalanceError when the available
 * balance is short) and asks settlement to execute it, all in the caller's transaction.
 */
export async function createPayout(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  input: NewPayout,
): Promise<PayoutRow> {
  const { approval, alreadySent, ...fields } = input;
  const decision = newPayout(
    { ...fields, id: input.id ?? newId("po") },
    { alreadySent: alreadySent === true },
  );
  const row = await insertPayout(tx, decision.state, approval ?? null);
  await runEffects(tx, subjects, row, decision.effects);
  return row;
}

export interface AppliedPayoutMessage {
  decision: PayoutDecision;
  row: PayoutRow;
}

/**
 * Runs one message through a payout's actor, locking its row. A message the payout has passed
 * (a replay) changes nothing and returns the row as it is. Undefined when there is no such payout.
 */
export async function applyPayoutMessage(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  payoutId: string,
  message: PayoutMessage,
): Promise<AppliedPayoutMessage | undefined> {
  const [row] = await tx<PayoutRow[]>`select * from payouts where id = ${payoutId} for update`;
  if (!row) return undefined;
  const decision = decide(stateOf(row), message);
  if (decision.rejected) return { decision, row };
  const updated = await updatePayout(tx, decision.state);
  await runEffects(tx, subjects, updated, decision.effects);
  return { decision, row: updated };
}

const movement = (state: PayoutState): PayoutMovement => ({
  payoutId: state.id,
  merchantId: state.merchantId,
  mode: state.mode,
  chain: state.chain,
  coin: state.coin,
  amount: state.amount,
  networkFee: state.networkFee,
});

/** The effects in their order: postings first, then the event that announces the new status. */
async function runEffects(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  row: PayoutRow,
  effects: PayoutEffect[],
): Promise<void> {
  const state = stateOf(row);
  const messages: OutboxMessage[] = [];
  for (const effect of effects) {
    switch (effect.type) {
      case "reserve":
        await reservePayout(tx, movement(state), { alreadySent: effect.alreadySent });
        break;
      case "settle":
        await completePayout(tx, movement(state));
        break;
      case "release":
        await releasePayout(tx, movement(state));
        break;
      case "execute":
        messages.push({
          id: `payout:${row.id}`,
          subject: subjects.payoutCommand(row.chain),
          payload: { payout_id: row.id } satisfies PayoutCommand,
        });
        break;
      case "event":
        await insertPayoutEvent(tx, row, effect.event);
        break;
      default:
        assertNever(effect, "payout effect");
    }
  }
  await enqueueOutbox(tx, messages);
}

/** The event row: the dashboard's timeline, and what the relay publishes for the notifier. */
async function insertPayoutEvent(tx: TransactionSql, row: PayoutRow, type: PayoutEventType): Promise<void> {
  const data: PayoutEvent["data"] = { payout: toPayoutResource(row) };
  await tx`insert into events (id, merchant_id, mode, type, payout_id, data, created_at)
    values (${newId("evt")}, ${row.merchant_id}, ${row.mode}, ${type}, ${row.id}, ${tx.json(data as never)}, ${new Date()})`;
  outboxWritten(tx);
}
