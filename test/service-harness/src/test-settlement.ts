import { connectBus } from "@gateway/bus";
import { createLogger } from "@gateway/logging";
import { usdRateForMode } from "@gateway/prices";
import { type Settlement, startSettlement } from "@gateway/settlement";
import type { TestHost } from "./test-host.js";

/**
 * The settlement service in-process beside a test API, on its database and stream prefix, with
 * short polls so simulations and expiries land within a test's patience. `ownConnection` gives it
 * a NATS connection of its own, as it has when it runs as its own process.
 */
export async function startTestSettlement(
  api: TestHost,
  options: { expiryPollMs?: number; ownConnection?: boolean } = {},
): Promise<Settlement> {
  const log = options.ownConnection ? createLogger({ name: "settlement", level: "silent" }) : api.deps.log;
  const bus = options.ownConnection
    ? await connectBus({ url: api.testBus.natsUrl, prefix: api.testBus.prefix, name: "settlement-test", log })
    : api.deps.bus;
  const settlement = await startSettlement({
    sql: api.deps.sql,
    bus,
    log,
    publicBaseUrl: api.baseUrl,
    expiryPollMs: options.expiryPollMs ?? 100,
    outboxPollMs: 50,
    usdRate: (mode, coin) => usdRateForMode(api.deps.prices, mode, coin),
  });
  if (!options.ownConnection) return settlement;
  return {
    ...settlement,
    async stop() {
      await settlement.stop();
      await bus.close();
    },
  };
}
