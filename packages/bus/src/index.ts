export { type ConsumerBacklog, consumerBacklogs } from "./backlog.js";
export { type Bus, type ConnectBusOptions, connectBus } from "./connect.js";
export {
  type BusMessage,
  type ConsumerOptions,
  RetryLater,
  type RunningConsumer,
  startConsumer,
} from "./consumer.js";
export { type HandoverHold, type HandoverOptions, handOverDurable } from "./handover.js";
export { busEpochReader, MESSAGE_ID_HEADER, publishWithId, readBusEpoch } from "./message-id.js";
export { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from "./outbox-relay.js";
export { type BusTopology, busTopology, DUPLICATE_WINDOW_MS, ensureStreams } from "./topology.js";
export { wakeablePause } from "./wakeable-pause.js";
