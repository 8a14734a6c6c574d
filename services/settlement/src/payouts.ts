// The payout actor: executes payouts recorded by the API or the daily schedule, one message per
// payout on `<p>.cmd.payout.<chain>`, and runs the schedule. State lives in PostgreSQL only.
import type { Bus, RunningConsumer } from "@gateway/bus";
import { nativeCoin } from "@gateway/chains";
import type { PayoutCommand } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import { recordGasSpent } from "@gateway/ledger";
import type { Logger } from "@gateway/logging";
import {
  applyPayoutMessage,
  findPayout,
  type PayoutMessage,
  type PayoutRow,
  payoutChain,
  payoutSubjects,
  payoutWork,
  runDueSchedules,
  stateOf,
} from "@gateway/payouts";
import { ChainPausedError } from "./chains/chain-paused.js";
import { type ChainPayouts, PayoutRefusedError } from "./chains/chain-payouts.js";
import { CHAIN_WORK_PACING, consumePerChain } from "./command-consumer.js";

/** The one durable payouts had before they were split per chain (consumers `payouts-<chain>` now). */
const CONSUMER = "payouts";
/** Chain errors retried this many times; after that the payout stays `processing` for an operator. */
const MAX_ATTEMPTS = 25;

export interface PayoutActorOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** Live payouts per chain. A live payout on a chain without one fails and is released. */
  chains?: ChainPayouts;
  /**
   * How often due schedules are looked for (default 30 s). Scheduled payouts carry no approval:
   * the signer sends them only to the merchant's linked wallet on its allow-list.
   */
  schedulePollMs?: number;
}

export interface PayoutActor {
  /** Executes one payout now (what a message does); exposed for tests and operators. */
  process(payoutId: string, attempt?: number): Promise<PayoutRow | undefined>;
  /** Runs the schedules due at `now`; returns how many payouts they created. */
  runSchedulesOnce(now?: Date): Promise<number>;
  stop(): Promise<void>;
}

/**
 * pending → processing → completed | failed. Test payouts are simulated: they complete at once
 * with no transaction and move no funds. Live payouts go through the chain's ChainPayout;
 * a refused one fails and its reserve returns to the available balance.
 */
export async function startPayouts(options: PayoutActorOptions): Promise<PayoutActor> {
  const { sql, bus, log } = options;
  const chains = options.chains ?? {};
  const subjects = payoutSubjects(bus.topology);
  const advance = async (payoutId: string, message: PayoutMessage) =>
    (await sql.begin((tx) => applyPayoutMessage(tx, subjects, payoutId, message)))?.row;

  async function process(payoutId: string, attempt = 1): Promise<PayoutRow | undefined> {
    const row = await findPayout(sql, { id: payoutId });
    if (!row) return row;
    const work = payoutWork(stateOf(row));
    if (work === "none") return row;
    if (row.status === "pending") await advance(payoutId, { type: "start" });
    if (work === "simulate") return advance(payoutId, { type: "complete", txid: null });
    const chain = chains[row.chain];
    if (!chain) {
      log.warn({ payoutId, chain: row.chain }, "no live payout configured for chain; payout failed");
      return advance(payoutId, {
        type: "fail",
        reason: `live payouts on ${row.chain} are not available yet`,
      });
    }
    try {
      const { txid, gasSpent } = await chain.payout({
        intentId: `payout:${row.id}`,
        payoutId: row.id,
        merchantId: row.merchant_id,
        mode: row.mode,
        chain: row.chain,
        coin: row.coin,
        amount: row.amount - row.network_fee,
        destination: row.destination,
        approval: row.approval
          ? {
              keyId: row.approval.key_id,
              signature: new Uint8Array(Buffer.from(row.approval.signature, "base64")),
              ...(row.approval.expires_at_ms ? { expiresAtMs: BigInt(row.approval.expires_at_ms) } : {}),
            }
          : null,
      });
      // Completion and the gas the service actually paid for it are booked together.
      return (await sql.begin(async (tx) => {
        const done = await applyPayoutMessage(tx, subjects, payoutId, { type: "complete", txid });
        if (gasSpent !== undefined && gasSpent > 0n) {
          await recordGasSpent(tx, {
            reference: `payout:${payoutId}`,
            mode: row.mode,
            chain: row.chain,
            coin: nativeCoin(row.chain),
            amount: gasSpent,
          });
        }
        return done?.row;
      })) as PayoutRow | undefined;
    } catch (err) {
      if (err instanceof PayoutRefusedError) {
        log.warn({ err, payoutId }, "payout refused; funds released");
        return advance(payoutId, { type: "fail", reason: err.message });
      }
      if (attempt >= MAX_ATTEMPTS && !(err instanceof ChainPausedError)) {
        // It may have gone out: keep the funds reserved and the status processing for an operator.
        log.error({ err, payoutId, attempt }, "payout still not confirmed after retries; operator must look");
        return row;
      }
      throw err;
    }
  }

  // One consumer per chain, as sweeps and refunds: a stalled chain holds only its own slots. The
  // payout's chain comes from its row, which a message published before the subject named the chain
  // (`<p>.cmd.payout.<id>`) needs as well. A message delivered again (after
  // a handover of the consumer, or a lost ack) finds its payout completed or failed and stops.
  const consumer: RunningConsumer = await consumePerChain<PayoutCommand>(bus, log, {
    durable: CONSUMER,
    subject: subjects.allPayoutCommands,
    ...CHAIN_WORK_PACING,
    chainOf: ({ data }) => payoutChain(sql, data.payout_id),
    handle: async ({ data, deliveryCount }) => {
      await process(data.payout_id, deliveryCount);
    },
  });

  const runSchedulesOnce = async (now = new Date()) => (await runDueSchedules(sql, subjects, { now })).length;

  // The schedule's timer is next_run_at in PostgreSQL; this loop only looks at it.
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  const tick = async () => {
    if (!running) return;
    current = runSchedulesOnce().catch((err) => log.warn({ err }, "payout schedule run failed; will retry"));
    await current;
    if (running) timer = setTimeout(tick, options.schedulePollMs ?? 30_000);
  };
  timer = setTimeout(tick, 0);

  return {
    process,
    runSchedulesOnce,
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
      await consumer.stop();
    },
  };
}
