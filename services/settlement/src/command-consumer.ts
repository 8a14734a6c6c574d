// Every settlement consumer reads the commands stream: deposits, payment commands, chain work.
import {
  type Bus,
  type BusMessage,
  type ConsumerOptions,
  handOverDurable,
  RetryLater,
  type RunningConsumer,
  startConsumer,
} from "@gateway/bus";
import { CHAINS, type Chain } from "@gateway/chains";
import type { Logger } from "@gateway/logging";

/**
 * Pacing of chain work (sweeps, refunds, payouts): a transaction takes seconds to reach finality,
 * so a message gets room before JetStream hands it to another replica, and a failure waits longer
 * each time (half a second, doubling, at most a minute). The work waits on the chain, not on this
 * process, so many run at once (a few would cap a flash sale's payments a second; bench/RESULTS-pipeline.md
 * has the runs). On Sui each transaction in flight
 * also holds one of the gas wallet's coins (docs/operations.md). Chain work runs in one consumer
 * per chain (`consumePerChain`), so these are per chain.
 */
export const CHAIN_WORK_PACING = {
  concurrency: 64,
  ackWaitMs: 120_000,
  retryDelayMs: (n: number) => Math.min(500 * 2 ** (n - 1), 60_000),
} satisfies Partial<ConsumerOptions<unknown>>;

type CommandOptions<T> = Omit<ConsumerOptions<T>, "js" | "jsm" | "log" | "stream" | "filterSubjects"> & {
  subject: string;
};

/** A durable consumer (`durable`) of the commands on `subject`. */
export function consumeCommands<T>(
  bus: Bus,
  log: Logger,
  options: CommandOptions<T>,
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

/** The durable of `chain`'s share of the work once done by the one durable `durable`. */
export const chainDurable = (durable: string, chain: Chain) => `${durable}-${chain}`;

export interface PerChainOptions<T> extends Omit<CommandOptions<T>, "handle"> {
  /**
   * The one durable this work had before it was split per chain, and the stem of the new names
   * (`<durable>-<chain>`). If it still exists its work is handed over and it is deleted
   * (`handOverDurable`, packages/bus/src/handover.ts).
   */
  durable: string;
  /** The chain whose work the message is. */
  chainOf(message: BusMessage<T>): Chain | undefined | Promise<Chain | undefined>;
  handle(message: BusMessage<T>): Promise<void>;
}

/**
 * One durable consumer per chain the code knows (`CHAINS`), each with its own `concurrency`, so
 * a chain that stalls (RPC down, finality slow, a stuck lock) fills only its own consumer's slots
 * and the other chains' work goes on. The subjects carry no chain (a sweep is
 * `<p>.cmd.settle.sweep` for every chain; outbox rows, and after a restore of PostgreSQL their
 * copies published again, keep the subject they were written with), so every chain's consumer
 * reads every message and acknowledges at once, without work, those of another chain.
 *
 * Every known chain gets a consumer, configured for live settlement or not, as the one durable
 * took every message: test-mode work and work on a chain without live settlement fails or
 * completes there as before, never silently unread. A message of no known chain (none the code
 * writes) goes to the first chain's consumer, which fails it as the one durable did.
 */
export async function consumePerChain<T>(
  bus: Bus,
  log: Logger,
  options: PerChainOptions<T>,
): Promise<RunningConsumer> {
  const { durable, chainOf, handle, ...rest } = options;
  // The one durable's work moves to these once, from whichever replica starts first.
  const holds = await handOverDurable(bus.jsm, log, {
    stream: bus.topology.streams.commands,
    from: durable,
    to: CHAINS.map((chain) => chainDurable(durable, chain)),
    subject: options.subject,
  });
  const started: RunningConsumer[] = [];
  try {
    for (const chain of CHAINS) {
      const hold = holds.get(chainDurable(durable, chain));
      started.push(
        await consumeCommands<T>(bus, log, {
          ...rest,
          durable: chainDurable(durable, chain),
          handle: async (message) => {
            const of = await chainOf(message);
            const owner = of !== undefined && CHAINS.includes(of) ? of : CHAINS[0];
            if (owner !== chain) return;
            // What the old durable may have handed to a replica of the previous version waits as
            // JetStream would have made it wait before giving it to another replica.
            if (hold && (message.seq === undefined || message.seq <= hold.through)) {
              const wait = hold.until - Date.now();
              if (wait > 0)
                throw new RetryLater(wait, `handed over from ${durable}; its holders' ack wait runs`);
            }
            await handle(message);
          },
        }),
      );
    }
  } catch (err) {
    await Promise.allSettled(started.map((c) => c.stop()));
    throw err;
  }
  return {
    async stop() {
      await Promise.all(started.map((c) => c.stop()));
    },
  };
}
