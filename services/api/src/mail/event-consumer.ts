// The mails the API sends on events (receipts, owners' payout notices): one durable consumer
// of the events stream, shared by every API replica.
import { type Bus, type BusMessage, type RunningConsumer, startConsumer } from "@gateway/bus";
import type { Logger } from "@gateway/logging";

export function consumeEvents(options: {
  bus: Bus;
  log: Logger;
  durable: string;
  /** Event types, `payment.>` for a family. */
  types: string;
  concurrency: number;
  handle: (message: BusMessage<unknown>) => Promise<void>;
}): Promise<RunningConsumer> {
  const { bus, log, durable, types, concurrency, handle } = options;
  return startConsumer<unknown>({
    js: bus.js,
    jsm: bus.jsm,
    log,
    stream: bus.topology.streams.events,
    durable,
    // One filter: nats-server 2.9 takes no list.
    filterSubjects: [bus.topology.subjects.event(types)],
    concurrency,
    handle,
  });
}
