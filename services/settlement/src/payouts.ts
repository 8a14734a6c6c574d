// Settlement's payout wiring: the consumers of `<p>.cmd.payout.<chain>` (one message per payout,
// recorded by the API or the daily schedule), the executor that sends them, and the schedule's
// loop. The payout's states and transitions are the decider's (packages/payouts).
import type { Bus, RunningConsumer } from "@gateway/bus";
import type { PayoutCommand } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import { type PayoutRow, payoutChain, payoutSubjects } from "@gateway/payouts";
import type { ChainPayouts } from "./chains/chain-payouts.js";
import { CHAIN_WORK_PACING, consumePerChain } from "./command-consumer.js";
import { PayoutExecutor } from "./payout-executor.js";
import { PayoutScheduleLoop } from "./payout-schedule-loop.js";

/** The one durable payouts had before they were split per chain (consumers `payouts-<chain>` now). */
const CONSUMER = "payouts";

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

export async function startPayouts(options: PayoutActorOptions): Promise<PayoutActor> {
  const { sql, bus, log } = options;
  const subjects = payoutSubjects(bus.topology);
  const executor = new PayoutExecutor({ sql, log, subjects, chains: options.chains ?? {} });

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
      await executor.process(data.payout_id, deliveryCount);
    },
  });

  const schedule = new PayoutScheduleLoop({ sql, log, subjects, pollMs: options.schedulePollMs ?? 30_000 });
  schedule.start();

  return {
    process: (payoutId, attempt) => executor.process(payoutId, attempt),
    runSchedulesOnce: (now) => schedule.runOnce(now),
    async stop() {
      await schedule.stop();
      await consumer.stop();
    },
  };
}
