// What a chain gives the one watcher service (services/watcher) besides its package's watcher
// code: the service opens PostgreSQL, NATS, the chain preflight, the health server and the
// shutdown the same way for every chain, and asks the chain's module for everything else.
import type { ServerResponse } from "node:http";
import type { Bus } from "@gateway/bus";
import type { ChainProbe } from "@gateway/chain-preflight";
import type { Chain } from "@gateway/contracts";
import type { Sql } from "@gateway/db";
import type { Logger } from "@gateway/logging";
import type { Registry } from "@gateway/metrics";
import type { z } from "zod";

/** The variables the service reads itself from a chain's watcher configuration. */
export interface WatcherServiceConfig {
  CHAIN_PREFLIGHT_INTERVAL_MS: number;
}

/** A started watcher, stopped on SIGTERM once the health server is closed. */
export interface RunningWatcher {
  stop(): Promise<void>;
}

/** What the service has opened for the watcher before it starts. */
export interface WatcherContext<Client> {
  client: Client;
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** The service's registry, served at /metrics: the watcher registers its own metrics there. */
  metrics: Registry;
  /** False while the chain preflight fails: no deposit is reported until it passes again. */
  crediting: () => boolean;
}

export interface ChainWatcherModule<
  C extends Chain = Chain,
  Config extends WatcherServiceConfig = WatcherServiceConfig,
  Client = unknown,
  Watcher extends RunningWatcher = RunningWatcher,
> {
  chain: C;
  /** The service's variables (packages/config's `watcher<Chain>ConfigSchema`), parsed once at start-up. */
  configSchema: z.ZodObject & z.ZodType<Config>;
  /** The chain's client, shared by the watcher and its readiness check. */
  connect(config: Config): Client;
  /** The chain preflight's probe of the configured endpoint (packages/chain-preflight). */
  probe(config: Config, client: Client): ChainProbe;
  /** Starts following the chain and registers the watcher's metrics. */
  start(config: Config, context: WatcherContext<Client>): Promise<Watcher>;
  /** Readiness checks of the chain's endpoint, beside PostgreSQL's, NATS's and the preflight's. */
  checks(client: Client): Record<string, () => Promise<unknown>>;
  /** GET routes of the health server beyond /healthz, /readyz and /metrics. */
  routes?(watcher: Watcher): Record<string, (res: ServerResponse) => void>;
}
