import type { Logger } from "@gateway/logging";
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { type BusTopology, busTopology, ensureStreams } from "./topology.js";

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  topology: BusTopology;
  close(): Promise<void>;
}

export interface ConnectBusOptions {
  url: string;
  prefix: string;
  name: string;
  log: Logger;
  /** Unset: keep existing streams' replica count (1 for new ones). */
  streamReplicas?: number | undefined;
}

/**
 * Connects with unlimited reconnects: a NATS restart pauses publishing and consuming but never
 * stops the process, and the outbox holds whatever could not be published meanwhile.
 */
export async function connectBus({
  url,
  prefix,
  name,
  log,
  streamReplicas,
}: ConnectBusOptions): Promise<Bus> {
  const nc = await connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    // Otherwise every publish and request builds an Error up front (its stack, for a timeout's
    // message): CPU on the hot path for a trace we never read.
    noAsyncTraces: true,
  });
  (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnect")
        log.warn({ status: status.type }, "nats connection");
    }
  })().catch(() => {});
  const jsm = await jetstreamManager(nc);
  const topology = busTopology(prefix);
  await ensureStreams(jsm, topology, streamReplicas);
  return {
    nc,
    js: jetstream(nc),
    jsm,
    topology,
    close: async () => {
      await nc.drain().catch(() => nc.close());
    },
  };
}
