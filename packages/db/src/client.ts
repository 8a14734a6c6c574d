import net from "node:net";
import postgres from "postgres";
import { trackOutboxCommits } from "./outbox-commits.js";

export type Sql = postgres.Sql<{ bigint: bigint }>;
export type TransactionSql = postgres.TransactionSql<{ bigint: bigint }>;
/** A statement written with `sql\`…\`` and not run yet, to be placed inside another one. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface CreateSqlOptions {
  url: string;
  /** Connections in this process's pool. */
  max?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
  /**
   * How long opening a connection keeps retrying while PostgreSQL refuses connections (a restart
   * or failover), before the query fails. Nothing has been sent yet, so waiting is always safe.
   */
  connectRetryMs?: number;
}

/**
 * One `postgres` client per process. int8 columns come back as `bigint`, so money read from the
 * database never passes through a float.
 */
export function createSql({
  url,
  max = 10,
  applicationName = "gateway",
  connectRetryMs = 10_000,
}: CreateSqlOptions): Sql {
  // `socket` is documented by postgres.js but missing from its type definitions.
  const socket = (options: SocketTarget) => connectWithRetry(options, connectRetryMs);
  const sql: Sql = postgres(url, {
    max,
    types: { bigint: postgres.BigInt },
    connection: { application_name: applicationName },
    onnotice: () => {},
    idle_timeout: 30,
    connect_timeout: 10,
    // A request that arrives while PostgreSQL restarts waits for it to come back instead of
    // failing at once: postgres.js gives up on the first refused connection otherwise.
    ...({ socket } as object),
  });
  // This process's outbox relay hears of its commits in process (outbox-commits.ts).
  return trackOutboxCommits(sql);
}

/** The parts of postgres.js's parsed options that say where to connect. */
interface SocketTarget {
  host: string[];
  port: number[];
  path?: string | false;
}

/** Errors that mean "nothing listens there right now", worth another try. */
const REFUSED = new Set(["ECONNREFUSED", "ENOENT", "ECONNRESET", "EAI_AGAIN"]);

export async function connectWithRetry(target: SocketTarget, retryMs: number): Promise<net.Socket> {
  const deadline = Date.now() + retryMs;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    try {
      return await connectOnce(target, attempt % Math.max(1, target.host.length));
    } catch (err) {
      if (!REFUSED.has((err as NodeJS.ErrnoException).code ?? "")) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** Math.min(attempt, 4), 1000)));
    }
  }
  // Out of time, or a failure not worth waiting out: hand postgres.js a socket that is still
  // connecting, so the failure reaches it as socket events and takes its usual path (queries
  // rejected, the connection closed and opened again later). Throwing here instead would leave
  // that pooled connection stuck for good, and every query routed to it hanging.
  return openSocket(target, 0);
}

function openSocket(target: SocketTarget, hostIndex: number): net.Socket {
  return target.path
    ? net.connect(target.path)
    : net.connect(target.port[hostIndex] ?? target.port[0] ?? 5432, target.host[hostIndex]);
}

function connectOnce(target: SocketTarget, hostIndex: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = openSocket(target, hostIndex);
    const fail = (err: Error) => {
      socket.destroy();
      reject(err);
    };
    socket.once("error", fail);
    socket.once("connect", () => {
      socket.off("error", fail);
      resolve(socket);
    });
  });
}
