// What every service opens first, and the same way: its configuration (a wrong one exits with a
// message naming the variable), its logger, a PostgreSQL pool named after it, and its NATS
// connection with the operator's stream replicas; and how it serves its health and stops.
import { type Bus, connectBus } from "@gateway/bus";
import { loadConfigOrExit } from "@gateway/config";
import { createSql, type Sql } from "@gateway/db";
import { createLogger, type Logger } from "@gateway/logging";
import type { z } from "zod";
import { type HealthServer, type HealthServerOptions, startHealthServer } from "./health-server.js";
import { onShutdown } from "./shutdown.js";

/** The variables every service reads (packages/config's infrastructure fields). */
interface Infrastructure {
  DATABASE_URL: string;
  NATS_URL: string;
  BUS_PREFIX: string;
  LOG_LEVEL: Parameters<typeof createLogger>[0]["level"];
  BUS_STREAM_REPLICAS?: number | undefined;
  DATABASE_POOL_SIZE?: number | undefined;
  /** Services without an HTTP surface of their own serve /healthz, /readyz and /metrics here. */
  HEALTH_PORT?: number | undefined;
}

export interface OpenService<C> {
  config: C;
  log: Logger;
  sql: Sql;
  bus: Bus;
  /** Readiness checks of PostgreSQL and NATS, for the service's health server beside its own. */
  infrastructureChecks: { database: () => Promise<unknown>; nats: () => Promise<unknown> };
  /** The health server on HEALTH_PORT: readiness runs the infrastructure checks beside `checks`. */
  serveHealth(options: Omit<HealthServerOptions, "port" | "log">): Promise<HealthServer>;
  /**
   * On SIGTERM/SIGINT runs the service's own stop steps in the order given (reverse of start-up),
   * then closes the bus and the database pool, which everything before may still use.
   */
  stopOnSignal(steps: (() => Promise<unknown>)[]): void;
}

export async function openService<S extends z.ZodObject>(
  name: string,
  schema: S,
  options: { databaseConnections: number },
): Promise<OpenService<z.infer<S> & Infrastructure>> {
  const config = loadConfigOrExit(name, schema) as z.infer<S> & Infrastructure;
  const log = createLogger({ name, level: config.LOG_LEVEL });
  const sql = createSql({
    url: config.DATABASE_URL,
    max: config.DATABASE_POOL_SIZE ?? options.databaseConnections,
    applicationName: name,
  });
  const bus = await connectBus({
    url: config.NATS_URL,
    prefix: config.BUS_PREFIX,
    name,
    log,
    streamReplicas: config.BUS_STREAM_REPLICAS,
  });
  const infrastructureChecks = {
    database: () => sql`select 1`,
    nats: () => (bus.nc.isClosed() ? Promise.reject(new Error("NATS connection closed")) : bus.nc.flush()),
  };
  return {
    config,
    log,
    sql,
    bus,
    infrastructureChecks,
    serveHealth(options) {
      if (config.HEALTH_PORT === undefined) throw new Error(`${name} has no HEALTH_PORT to serve health on`);
      return startHealthServer({
        ...options,
        port: config.HEALTH_PORT,
        log,
        checks: { ...infrastructureChecks, ...options.checks },
      });
    },
    stopOnSignal(steps) {
      onShutdown(log, [...steps, () => bus.close(), () => sql.end({ timeout: 5 })]);
    },
  };
}
