import type { Bus, RunningConsumer } from "@gateway/bus";
import type { RefundCommand, SweepCommand } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import { type Chain, isPriced, type Mode, type PricedCoin, parseCoin } from "@gateway/domain";
import { type PaymentActorDeps, type PaymentRow, stateOf, type ToPayment } from "@gateway/payments";
import { ChainPausedError } from "./chains/chain-paused.js";
import type { ChainSettlement, ChainSettlements } from "./chains/chain-settlement.js";
import { CHAIN_WORK_PACING, consumePerChain } from "./command-consumer.js";
import { paymentMessageBatches } from "./payment-message-batches.js";

/** The one durable this work had before it was split per chain (consumers `settlement-work-<chain>` now). */
const CONSUMER = "settlement-work";
/** After this many failed attempts the payment is marked failed for an operator (never silent). */
const MAX_ATTEMPTS = 25;

/** The live price of a coin now (micro-USD), or null when no fresh, agreeing price exists. */
export type UsdRate = (mode: Mode, coin: PricedCoin) => bigint | null;

type WorkDeps = PaymentActorDeps & { bus: Bus; chains: ChainSettlements; usdRate?: UsdRate | undefined };
/** Sends what the chain did to the payment actor, once for the command being handled. */
type Report = (toPayment: ToPayment) => Promise<unknown>;

/**
 * Sweeps and refunds that payment actors asked for (`<p>.cmd.settle.sweep|refund`), executed by
 * the chain's settlement and reported back to the actor, in one consumer per chain: a stalled
 * chain holds only its own slots. A failure is retried with a growing delay; the chain adapters
 * make a retry safe (same intent, checked on chain before a resend).
 */
export function startSettlementWork(deps: WorkDeps): Promise<RunningConsumer> {
  const { bus, sql, log, chains } = deps;
  // What the chain did goes back to the payment actor, whose state takes each report once.
  const report = paymentMessageBatches(deps);

  return consumePerChain<SweepCommand | RefundCommand>(bus, log, {
    durable: CONSUMER,
    subject: bus.topology.subjects.allSettlement,
    ...CHAIN_WORK_PACING,
    chainOf: ({ data }) => data.chain,
    handle: async ({ id, subject, data, deliveryCount }) => {
      // Handled before (delivered again after a handover of the consumer, or after a lost ack):
      // the payment's state holds what the chain did, so the chain is not asked again.
      if (await alreadyReported(sql, subject, data)) return;
      const chain = chains[data.chain];
      const reportOnce: Report = (toPayment) => report(toPayment);
      try {
        if (!chain) throw new Error(`no settlement configured for chain ${data.chain}`);
        if (subject.endsWith(".sweep")) await sweep(deps, chain, data as SweepCommand, reportOnce);
        else await refund(sql, chain, data as RefundCommand, reportOnce);
      } catch (err) {
        // A paused chain is not a failed attempt: the work waits for the chain's preflight.
        if (deliveryCount < MAX_ATTEMPTS || err instanceof ChainPausedError) throw err;
        log.error(
          { err, messageId: id, paymentId: data.payment_id },
          "settlement work failed for good; payment marked failed",
        );
        await reportOnce({
          paymentId: data.payment_id,
          message: { type: "fail", reason: `${subject.split(".").pop()} failed: ${String(err)}` },
        });
      }
    },
  });
}

async function sweep(deps: WorkDeps, chain: ChainSettlement, sweep: SweepCommand, report: Report) {
  const { txid } = await chain.sweep({
    intentId: `sweep:${sweep.payment_id}`,
    paymentId: sweep.payment_id,
    mode: sweep.mode,
    chain: sweep.chain,
    coin: parseCoin(sweep.coin),
    depositAddress: sweep.address,
    derivationIndex: await depositWallet(deps.sql, sweep.payment_id, sweep.chain, sweep.address),
    amount: BigInt(sweep.amount),
  });
  // SOL/SUI payments take their fee at the price of completion; the actor ignores the rate
  // for anything else (a quoted USD payment keeps its quote). No price: the creation fee.
  const coin = parseCoin(sweep.coin);
  const usdRate = isPriced(coin) ? (deps.usdRate?.(sweep.mode, coin) ?? null) : null;
  if (isPriced(coin) && usdRate === null) {
    deps.log.warn(
      { paymentId: sweep.payment_id, coin },
      "no live price at completion; fee at the creation price",
    );
  }
  await report({ paymentId: sweep.payment_id, message: { type: "sweep_done", txid, usdRate } });
}

async function refund(sql: Sql, chain: ChainSettlement, refund: RefundCommand, report: Report) {
  const address = await currentAddress(sql, refund.payment_id);
  const { txid } = await chain.refund({
    intentId: `refund:${refund.refund_id}`,
    refundId: refund.refund_id,
    paymentId: refund.payment_id,
    mode: refund.mode,
    chain: refund.chain,
    coin: parseCoin(refund.coin),
    amount: BigInt(refund.amount),
    to: refund.to,
    from: refund.from,
    depositAddress: address,
    derivationIndex: await depositWallet(sql, refund.payment_id, refund.chain, address),
    attestation:
      refund.attestation && refund.transfer_id && refund.transfer_amount
        ? {
            ...refund.attestation,
            transferId: refund.transfer_id,
            transferAmount: BigInt(refund.transfer_amount),
          }
        : null,
  });
  await report({
    paymentId: refund.payment_id,
    message: { type: "refund_sent", refundId: refund.refund_id, txid },
  });
}

async function depositWallet(sql: Sql, paymentId: string, chain: Chain, address: string) {
  const [wallet] = await sql<{ derivation_index: bigint }[]>`
    select derivation_index from deposit_wallets where payment_id = ${paymentId} and chain = ${chain} and address = ${address}`;
  if (!wallet) throw new Error(`no deposit wallet ${address} for payment ${paymentId}`);
  return Number(wallet.derivation_index);
}

async function currentAddress(sql: Sql, paymentId: string) {
  const [row] = await sql<{ address: string | null }[]>`
    select state->'wallet'->>'address' as address from payments where id = ${paymentId}`;
  if (!row?.address) throw new Error(`payment ${paymentId} has no deposit address`);
  return row.address;
}

async function alreadyReported(sql: Sql, subject: string, command: SweepCommand | RefundCommand) {
  const [row] = await sql<
    Pick<PaymentRow, "state">[]
  >`select state from payments where id = ${command.payment_id}`;
  if (!row) return false;
  const state = stateOf(row);
  if (subject.endsWith(".sweep")) return state.sweepTxid !== null;
  const refundId = (command as RefundCommand).refund_id;
  return state.refunds.some((r) => r.refundId === refundId && r.txid !== null);
}
