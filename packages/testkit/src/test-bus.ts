import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { inject } from "vitest";

export interface TestBus {
  natsUrl: string;
  /** Stream and subject prefix unique to this test; pass it as BUS_PREFIX. */
  prefix: string;
  nc: NatsConnection;
  /** Deletes the streams this test created and closes the connection. */
  cleanup(): Promise<void>;
}

export async function createTestBus(): Promise<TestBus> {
  const natsUrl = inject("gatewayInfra").natsUrl;
  const prefix = `t${randomBytes(5).toString("hex")}`;
  const nc = await connect({ servers: natsUrl, name: "testkit" });
  return {
    natsUrl,
    prefix,
    nc,
    async cleanup() {
      const jsm = await jetstreamManager(nc);
      for await (const stream of jsm.streams.list()) {
        if (stream.config.name.startsWith(`${prefix.toUpperCase()}_`))
          await jsm.streams.delete(stream.config.name);
      }
      await nc.close();
    },
  };
}

export function natsUrl(): string {
  return inject("gatewayInfra").natsUrl;
}
