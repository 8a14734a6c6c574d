// Payout records and their lifecycle, shared by the API (creation, listing) and settlement (the
// payout actor and the daily schedule). Every status change writes its ledger movement, its
// event and the outbox messages in the caller's transaction.

import { perChain } from "@gateway/chains";
import {
  type EventMessage,
  type Payout,
  type PayoutCoin,
  type PayoutCommand,
  type PayoutEvent,
  type PayoutEventType,
  type PayoutKind,
  type PayoutStatus,
  payoutEventType,
} from "@gateway/contracts";
import { enqueueOutbox, newId, type OutboxMessage, type TransactionSql } from "@gateway/db";
import { type Chain, formatAmount, type Mode } from "@gateway/domain";
import { completePayout, type PayoutMovement, releasePayout, reservePayout } from "./movements.js";

export { PAYOUT_COINS, type PayoutCoin, type PayoutKind, type PayoutStatus } from "@gateway/contracts";

/**
 * Network gas a payout requested by hand is charged, in base units of the payout coin: each
 * chain's, from the registry (`manualPayoutNetworkFee`). The scheduled payout of the day is free.
 */
export const MANUAL_PAYOUT_NETWORK_FEE: Readonly<Record<Chain, bigint>> = perChain(
  (module) => module.manualPayoutNetworkFee,
);

export interface PayoutRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  chain: Chain;
  coin: PayoutCoin;
  amount: bigint;
  network_fee: bigint;
  destination: string;
  kind: PayoutKind;
  status: PayoutStatus;
  simulated: boolean;
  txid: string | null;
  failure_reason: string | null;
  /** The API's approval (manual live payouts); expires_at_ms in Unix ms as a string. */
  approval: { key_id: string; signature: string; expires_at_ms?: string } | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** The payout as merchants see it (GET /payouts, payout.* events). Amounts are decimal strings. */
export function toPayoutResource(row: PayoutRow): Payout {
  return {
    id: row.id,
    object: "payout" as const,
    status: row.status,
    amount: formatAmount(row.amount, row.coin),
    network_fee: formatAmount(row.network_fee, row.coin),
    net_amount: formatAmount(row.amount - row.network_fee, row.coin),
    coin: row.coin,
    chain: row.chain,
    destination: row.destination,
    transaction_hash: row.txid,
    kind: row.kind,
    mode: row.mode,
    is_test: row.mode === "test",
    simulated: row.simulated,
    failure_reason: row.failure_reason,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}
export type PayoutResource = Payout;

/** Subjects the payout records publish on; from the bus topology. */
export interface PayoutSubjects {
  /** `<p>.events.<type>`, read by the notifier. */
  event(type: PayoutEventType): string;
  /** Where settlement's payout actor listens: one subject per chain, the payout id in the payload
   * (a subject per payout would cost nats-server memory for the stream's whole retention). */
  payoutCommand(chain: Chain): string;
}

/** `<p>.cmd.payout.<chain>`: inside the commands stream, outside settlement-work's `cmd.settle.>`. */
export function payoutSubjects(topology: {
  prefix: string;
  subjects: { event(type: string): string };
}): PayoutSubjects & { allPayoutCommands: string } {
  return {
    event: (type) => topology.subjects.event(type),
    payoutCommand: (chain) => `${topology.prefix}.cmd.payout.${chain}`,
    allPayoutCommands: `${topology.prefix}.cmd.payout.>`,
  };
}

export interface NewPayout {
  merchantId: string;
  mode: Mode;
  chain: Chain;
  coin: PayoutCoin;
  amount: bigint;
  networkFee: bigint;
  destination: string;
  kind: PayoutKind;
  /** Test payouts are simulated: no funds move. */
  approval?: { key_id: string; signature: string; expires_at_ms?: string } | null;
  id?: string;
  /** Put back from the signer's record after a restore of the database: reserved whatever the balance. */
  alreadySent?: boolean;
}

const movement = (row: PayoutRow): PayoutMovement => ({
  payoutId: row.id,
  merchantId: row.merchant_id,
  mode: row.mode,
  chain: row.chain,
  coin: row.coin,
  amount: row.amount,
  networkFee: row.network_fee,
});

/**
 * Records a pending payout, reserves its amount (InsufficientBalanceError when the available
 * balance is short) and asks settlement to execute it, all in the caller's transaction.
 */
export async function createPayout(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  input: NewPayout,
): Promise<PayoutRow> {
  const id = input.id ?? newId("po");
  const [row] = await tx<PayoutRow[]>`
    insert into payouts (id, merchant_id, mode, chain, coin, amount, network_fee, destination, kind, status, simulated, approval)
    values (${id}, ${input.merchantId}, ${input.mode}, ${input.chain}, ${input.coin}, ${input.amount},
      ${input.networkFee}, ${input.destination}, ${input.kind}, 'pending', ${input.mode === "test"},
      ${input.approval ? tx.json(input.approval) : null})
    returning *`;
  await reservePayout(tx, movement(row!), { alreadySent: input.alreadySent === true });
  await enqueueOutbox(tx, [
    {
      id: `payout:${id}`,
      subject: subjects.payoutCommand(input.chain),
      payload: { payout_id: id } satisfies PayoutCommand,
    },
  ]);
  return row!;
}

export type PayoutTransition =
  | { status: "processing" }
  | { status: "completed"; txid: string | null }
  | { status: "failed"; reason: string };

const ALLOWED: Readonly<Record<PayoutTransition["status"], readonly PayoutStatus[]>> = {
  processing: ["pending"],
  completed: ["pending", "processing"],
  failed: ["pending", "processing"],
};

/**
 * Moves a payout on (pending → processing → completed | failed), locking its row, with the
 * ledger movement (completion spends the reserve, failure gives it back) and the `payout.*`
 * event. A transition the payout has passed already is ignored (a replay): returns the row as it is.
 */
export async function advancePayout(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  payoutId: string,
  to: PayoutTransition,
): Promise<PayoutRow | undefined> {
  const [row] = await tx<PayoutRow[]>`select * from payouts where id = ${payoutId} for update`;
  if (!row) return undefined;
  if (!ALLOWED[to.status].includes(row.status)) return row;
  const [updated] = await tx<PayoutRow[]>`
    update payouts set status = ${to.status}, updated_at = now(),
      txid = ${to.status === "completed" ? to.txid : row.txid},
      failure_reason = ${to.status === "failed" ? to.reason : null},
      completed_at = ${to.status === "completed" ? tx`now()` : null}
    where id = ${payoutId} returning *`;
  if (to.status === "completed") await completePayout(tx, movement(updated!));
  if (to.status === "failed") await releasePayout(tx, movement(updated!));
  await enqueueOutbox(tx, [await payoutEvent(tx, subjects, updated!, payoutEventType(to.status))]);
  return updated!;
}

/** Writes the event row (the dashboard's timeline, the notifier's source) and returns its outbox message. */
async function payoutEvent(
  tx: TransactionSql,
  subjects: PayoutSubjects,
  row: PayoutRow,
  type: PayoutEventType,
): Promise<OutboxMessage> {
  const id = newId("evt");
  const createdAt = new Date();
  const event: PayoutEvent = {
    id,
    type,
    created_at: createdAt.toISOString(),
    is_test: row.mode === "test",
    data: { payout: toPayoutResource(row) },
  };
  await tx`insert into events (id, merchant_id, mode, type, payout_id, data, created_at)
    values (${id}, ${row.merchant_id}, ${row.mode}, ${type}, ${row.id}, ${tx.json(event.data as never)}, ${createdAt})`;
  return {
    id,
    subject: subjects.event(type),
    payload: { merchant_id: row.merchant_id, mode: row.mode, event } satisfies EventMessage,
  };
}
