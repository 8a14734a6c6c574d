import { setTimeout as sleep } from "node:timers/promises";

/** Error codes that mean the database could not be reached or went away (restart, failover). */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  // A write to a connection whose backend was just ended: postgres.js writes a query on the next
  // tick, and the socket can be closed by then (seen as a 500 in the PostgreSQL-faults suite).
  "EPIPE",
  "ETIMEDOUT",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down)
  "57P01",
  "57P02",
  "57P03",
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && UNAVAILABLE.has(code);
}

/**
 * Runs `work` again while the database is unavailable, for up to `retryMs`. Only for work that
 * is safe to repeat even if an attempt that failed had in fact committed (an insert of a row
 * whose id was fixed before the first attempt, with `on conflict do nothing`).
 */
export async function retryWhileUnavailable<T>(work: () => Promise<T>, retryMs = 10_000): Promise<T> {
  return retryWhileTransient(work, { transient: isDatabaseUnavailable, retryMs });
}

/**
 * Runs `work` again while its failure is `transient`, waiting 100 ms and doubling up to a second
 * between attempts, for up to `retryMs`. Any other failure is thrown as it is; the last transient
 * one, through `giveUp` when given.
 */
export async function retryWhileTransient<T>(
  work: () => Promise<T>,
  options: { transient: (err: unknown) => boolean; retryMs: number; giveUp?: (err: unknown) => unknown },
): Promise<T> {
  const deadline = Date.now() + options.retryMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!options.transient(err)) throw err;
      if (Date.now() >= deadline) throw options.giveUp ? options.giveUp(err) : err;
      await sleep(Math.min(100 * 2 ** attempt, 1000));
    }
  }
}
