// Every settlement consumer reads the commands stream: deposits, payment commands, chain work.
import { type Bus, type ConsumerOptions, type RunningConsumer, startConsumer } from "@gateway/bus";
import type { Logger } from "@gateway/logging";

/**
 * Pacing of chain work (sweeps, refunds, payouts): a transaction takes seconds to reach finality,
 * so a message gets room before JetStream hands it to another replica, and a failure waits longer
 * each time (half a second, doubling, at most a minute). The work waits on the chain, not on this
 * process, so many run at once: with 8, sweeps (about 0.4 s each on the local networks) capped a
 * flash sale at 20 live payments a second (bench/RESULTS.md). On Sui each transaction in flight
 * also holds one of the gas wallet's coins (docs/operations.md).
 */
export const CHAIN_WORK_PACING = {
  concurrency: 64,
  ackWaitMs: 120_000,
  retryDelayMs: (n: number) => Math.min(500 * 2 ** (n - 1), 60_000),
} satisfies Partial<ConsumerOptions<unknown>>;

/** A durable consumer (`durable`) of the commands on `subject`. */
export function consumeCommands<T>(
  bus: Bus,
  log: Logger,
  options: Omit<ConsumerOptions<T>, "js" | "jsm" | "log" | "stream" | "filterSubjects"> & { subject: string },
): Promise<RunningConsumer> {
  const { subject, ...rest } = options;
  return startConsumer<T>({
    js: bus.js,
    jsm: bus.jsm,
    log,
    stream: bus.topology.streams.commands,
    filterSubjects: [subject],
    ...rest,
  });
}
